import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { openDatabase } from '../../src/store/database.js';
import { NewerDatabaseError, schemaVersion, type Migration } from '../../src/store/migrate.js';
import { migrations } from '../../src/store/migrations.js';
import { openSqlite } from '../../src/store/sqlite.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'leo-migrate-'));
after(() => fs.rmSync(dir, { recursive: true, force: true }));
let n = 0;
const file = () => path.join(dir, `db${++n}.sqlite`);

const notes: Migration = {
  name: 'notes',
  up: (db) => db.exec('CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT NOT NULL)'),
};
const addTag: Migration = {
  name: 'tags',
  up: (db) => db.exec("ALTER TABLE notes ADD COLUMN tag TEXT NOT NULL DEFAULT 'none'"),
};
const addIndex: Migration = { name: 'index', up: (db) => db.exec('CREATE INDEX notes_tag ON notes (tag)') };
const halfDone: Migration = {
  name: 'fails half-way',
  up(db) {
    db.exec('CREATE TABLE half (x)');
    db.exec("UPDATE notes SET body = 'clobbered'");
    throw new Error('step exploded');
  },
};

const sha = (f: string) => createHash('sha256').update(fs.readFileSync(f)).digest('hex');

describe('chat.db migrations', () => {
  it('a fresh database reaches the latest version with WAL, foreign keys and a busy timeout', () => {
    const f = file();
    const db = openDatabase(f);
    assert.equal(schemaVersion(db), migrations.length);
    assert.equal(db.pragma('journal_mode', { simple: true }), 'wal');
    assert.equal(db.pragma('foreign_keys', { simple: true }), 1);
    assert.ok((db.pragma('busy_timeout', { simple: true }) as number) >= 1000);
    assert.ok(db.prepare("SELECT name FROM sqlite_master WHERE name = 'tokens'").get());
    db.close();
    const again = openDatabase(f);
    assert.equal(schemaVersion(again), migrations.length, 'reopening is a no-op');
    again.close();
  });

  it('an older database is upgraded in place with its rows intact', () => {
    const f = file();
    const v1 = openDatabase(f, [notes]);
    v1.prepare('INSERT INTO notes (body) VALUES (?), (?)').run('first', 'second');
    v1.close();
    const v3 = openDatabase(f, [notes, addTag, addIndex]);
    assert.equal(schemaVersion(v3), 3);
    assert.deepEqual(v3.prepare('SELECT id, body, tag FROM notes ORDER BY id').all(), [
      { id: 1, body: 'first', tag: 'none' },
      { id: 2, body: 'second', tag: 'none' },
    ]);
    v3.close();
  });

  it('a failed step leaves the database at the previous version, with nothing of that step applied', () => {
    const f = file();
    const v2 = openDatabase(f, [notes, addTag]);
    v2.prepare('INSERT INTO notes (body) VALUES (?)').run('keep me');
    v2.close();
    assert.throws(() => openDatabase(f, [notes, addTag, halfDone]), /step exploded/);
    const raw = openSqlite(f);
    assert.equal(schemaVersion(raw), 2);
    assert.equal(raw.prepare("SELECT name FROM sqlite_master WHERE name = 'half'").get(), undefined);
    assert.deepEqual(raw.prepare('SELECT body FROM notes').all(), [{ body: 'keep me' }]);
    raw.close();
    const later = openDatabase(f, [notes, addTag, addIndex]);
    assert.equal(schemaVersion(later), 3, 'a fixed release upgrades it normally');
    later.close();
  });

  it('devices paired before the fleet scope keep it (they had fleet writes); a pending code and a client do not', () => {
    const f = file();
    const step = migrations.findIndex((m) => m.name === 'device fleet scope');
    const old = openDatabase(f, migrations.slice(0, step));
    const token = old.prepare('INSERT INTO tokens (id, kind, name, hash, created_at) VALUES (?, ?, ?, ?, ?)');
    token.run('d1', 'device', 'phone', 'h1', 'x');
    token.run('c1', 'client', 'dashboard', 'h2', 'x');
    old
      .prepare('INSERT INTO pairing_codes (hash, name, created_at, expires_ms) VALUES (?, ?, ?, ?)')
      .run('code', 'tablet', 'x', Date.now() + 60_000);
    old.close();
    const db = openDatabase(f);
    assert.deepEqual(db.prepare('SELECT name, fleet FROM tokens ORDER BY id').all(), [
      { name: 'dashboard', fleet: 0 },
      { name: 'phone', fleet: 1 },
    ]);
    assert.deepEqual(db.prepare('SELECT name, fleet FROM pairing_codes').all(), [{ name: 'tablet', fleet: 0 }]);
    db.close();
  });

  it('a database from a newer leo is refused with both versions named, and left byte-for-byte unchanged', () => {
    const f = file();
    const newer = openSqlite(f);
    newer.exec('CREATE TABLE future (x); INSERT INTO future VALUES (42);');
    newer.pragma(`user_version = ${migrations.length + 5}`);
    newer.close();
    const before = sha(f);
    const siblings = fs
      .readdirSync(dir)
      .filter((x) => x.startsWith(path.basename(f)))
      .sort();
    assert.throws(
      () => openDatabase(f),
      (err: unknown) => {
        assert.ok(err instanceof NewerDatabaseError);
        assert.match(err.message, new RegExp(`version ${migrations.length + 5}.*up to ${migrations.length}`));
        return true;
      },
    );
    assert.equal(sha(f), before);
    assert.deepEqual(
      fs
        .readdirSync(dir)
        .filter((x) => x.startsWith(path.basename(f)))
        .sort(),
      siblings,
    );
  });

  it('the peer-token step rebuilds tokens keeping every row, and the push subscriptions that point at them', () => {
    const f = file();
    const older = openDatabase(f, migrations.slice(0, -1));
    older
      .prepare(
        `INSERT INTO tokens (id, kind, name, hash, fleet, created_at) VALUES ('t1', 'device', 'phone', 'h', 1, 'x')`,
      )
      .run();
    older
      .prepare(
        `INSERT INTO push_subscriptions (id, provider, body, created_at, token_id) VALUES ('s1', 'web-push', '{}', 'x', 't1')`,
      )
      .run();
    older
      .prepare(`INSERT INTO pairing_codes (hash, name, created_at, expires_ms, fleet) VALUES ('c', 'p', 'x', 1, 0)`)
      .run();
    older.close();
    const db = openDatabase(f);
    assert.deepEqual(db.prepare('SELECT id, kind, name, fleet FROM tokens').all(), [
      { id: 't1', kind: 'device', name: 'phone', fleet: 1 },
    ]);
    assert.deepEqual(db.prepare('SELECT id, token_id FROM push_subscriptions').all(), [{ id: 's1', token_id: 't1' }]);
    assert.deepEqual(db.prepare('SELECT name, kind FROM pairing_codes').all(), [{ name: 'p', kind: 'device' }]);
    assert.equal(db.pragma('foreign_keys', { simple: true }), 1, 'foreign keys are back on');
    db.prepare(`INSERT INTO tokens (id, kind, name, hash, created_at) VALUES ('t2', 'peer', 'hub', 'h2', 'x')`).run();
    // The foreign key still cascades: revoking the device takes its subscription with it.
    db.prepare(`DELETE FROM tokens WHERE id = 't1'`).run();
    assert.deepEqual(db.prepare('SELECT id FROM push_subscriptions').all(), []);
    db.close();
  });
});
