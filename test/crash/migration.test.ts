import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { migrate } from '../../src/store/migrate.js';
import { migrations } from '../../src/store/migrations.js';
import { openDatabase } from '../../src/store/database.js';
import { runSeeds, sleep } from './kit.js';
import { openSqlite, type Database } from '../../src/store/sqlite.js';

const CHILD = path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrate-child.js');
/** How long the child stretches each step (its writes run this long inside the step's transaction). */
const STEP_MS = 200;
const LATEST = migrations.length;
/** The step that drops the push subscriptions registered before they had owners (issue 20 item 3). */
const OWNERS_STEP = migrations.findIndex((m) => m.name === 'push subscription owners');

/** Rows for the tables of the early versions: what must come through every later step untouched. */
const SEED: Record<string, (i: number) => Record<string, string | number>> = {
  tokens: (i) => ({ id: `t${i}`, kind: i % 2 ? 'device' : 'client', name: `n${i}`, hash: `h${i}`, created_at: 'x' }),
  agents: (i) => ({ name: `agent${i}`, template: 'sink', state: 'parked', created_at: 'x' }),
  messages: (i) => ({ id: `m${i}`, agent: 'den', direction: 'in', kind: 'text', text: `hello ${i}`, ts: 'x' }),
  reminders: (i) => ({ id: `r${i}`, agent: 'den', text: `remind ${i}`, at: 'x', at_ms: i, created_at: 'x' }),
  push_subscriptions: (i) => ({ id: `p${i}`, provider: 'webhook', body: `{"n":${i}}`, created_at: 'x' }),
  task_runs: (i) => ({ id: `run${i}`, task: 'daily', status: 'succeeded', completed_at: `${i}` }),
};

const tablesOf = (db: Database) =>
  new Set((db.prepare(`SELECT name FROM sqlite_master WHERE type = 'table'`).pluck().all() as string[]).sort());

function seed(db: Database): void {
  const present = tablesOf(db);
  for (const [table, row] of Object.entries(SEED)) {
    if (!present.has(table)) continue;
    const cols = Object.keys(row(0));
    const insert = db.prepare(`INSERT INTO ${table} (${cols.join(', ')}) VALUES (${cols.map((c) => `@${c}`)})`);
    for (let i = 0; i < 50; i++) insert.run(row(i));
  }
}

/** The seeded columns of every seeded table present, in row order. */
function seededData(db: Database): Record<string, unknown[]> {
  const present = tablesOf(db);
  const out: Record<string, unknown[]> = {};
  for (const [table, row] of Object.entries(SEED))
    if (present.has(table))
      out[table] = db.prepare(`SELECT ${Object.keys(row(0)).join(', ')} FROM ${table} ORDER BY rowid`).all();
  return out;
}

const schemaOf = (db: Database) =>
  db.prepare('SELECT type, name, tbl_name, sql FROM sqlite_master ORDER BY type, name').all();

/** What a database at version v looks like: Leo's first v migrations on an empty one. */
function referenceSchema(v: number): unknown[] {
  const db = openSqlite(':memory:');
  try {
    migrate(db, migrations.slice(0, v), ':memory:');
    return schemaOf(db);
  } finally {
    db.close();
  }
}

/** Opens the file as SQLite would after a crash (WAL recovery), without migrating it. */
function inspect(file: string) {
  const db = openSqlite(file);
  try {
    return {
      version: db.pragma('user_version', { simple: true }) as number,
      schema: schemaOf(db),
      integrity: db.pragma('integrity_check', { simple: true }),
    };
  } finally {
    db.close();
  }
}

/**
 * Runs the slowed migrations in a child and SIGKILLs it `delayMs` into step `target`. Resolves with the last step
 * the child announced, and whether the kill landed (the child may finish first).
 */
function migrateAndKill(file: string, target: number, delayMs: number): Promise<{ lastStep: number; killed: boolean }> {
  const child = spawn(process.execPath, [CHILD, file, String(STEP_MS)], { stdio: ['ignore', 'pipe', 'pipe'] });
  let lastStep = -1;
  let armed = false;
  let err = '';
  let out = '';
  child.stderr.on('data', (c: Buffer) => (err += c.toString()));
  child.stdout.on('data', (c: Buffer) => {
    out += c.toString();
    for (const m of out.matchAll(/step (\d+)\n/g)) lastStep = Math.max(lastStep, Number(m[1]));
    if (lastStep >= target && !armed) {
      armed = true;
      void sleep(delayMs).then(() => child.kill('SIGKILL'));
    }
  });
  return new Promise((resolve, reject) =>
    child.once('exit', (code, signal) => {
      if (signal === 'SIGKILL') resolve({ lastStep, killed: true });
      else if (code === 0 && out.includes('done')) resolve({ lastStep, killed: false });
      else reject(new Error(`migration child exited ${code ?? signal}:\n${err}`));
    }),
  );
}

describe('crash: SIGKILL in the middle of a migration step', () => {
  it('chat.db stays at the last completed version, then opens and migrates with its data intact', async (t) => {
    await runSeeds(t, 'migration', { ciSeeds: 6, parallel: 2, file: 'crash/migration' }, async (_seed, rng) => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'leo-crash-migrate-'));
      const file = path.join(dir, 'chat.db');
      try {
        // An older Leo's database: only its first `from` steps, with rows in the main tables they made.
        const from = rng.int(0, LATEST - 1);
        const old = openDatabase(file, migrations.slice(0, from));
        seed(old);
        const data = seededData(old);
        old.close();

        const tally = { kills: 0, 'step rolled back': 0, 'step had just committed': 0 };
        for (let round = 0; round < 2; round++) {
          const before = inspect(file).version;
          if (before === LATEST) break;
          const { lastStep, killed } = await migrateAndKill(file, rng.int(before, LATEST - 1), rng.int(0, STEP_MS));
          const after = inspect(file);
          if (!killed) {
            assert.equal(after.version, LATEST);
            continue;
          }
          tally.kills++;
          tally[after.version === lastStep ? 'step rolled back' : 'step had just committed']++;
          // Every step before the one it was in committed; that one either committed whole or not at all.
          assert.ok(
            after.version === lastStep || after.version === lastStep + 1,
            `killed in step ${lastStep}: at version ${after.version}`,
          );
          assert.deepEqual(after.schema, referenceSchema(after.version), `exactly version ${after.version}'s schema`);
          assert.equal(after.integrity, 'ok');
        }

        const db = openDatabase(file);
        try {
          assert.equal(db.pragma('user_version', { simple: true }), LATEST);
          assert.deepEqual(schemaOf(db), referenceSchema(LATEST));
          const now = seededData(db);
          if (from <= OWNERS_STEP && data.push_subscriptions) data.push_subscriptions = [];
          assert.deepEqual(
            Object.fromEntries(Object.keys(data).map((k) => [k, now[k]])),
            data,
            'the older data came through',
          );
          assert.equal(db.pragma('integrity_check', { simple: true }), 'ok');
        } finally {
          db.close();
        }
        return tally;
      } finally {
        fs.rmSync(dir, { recursive: true, force: true });
      }
    });
  });
});
