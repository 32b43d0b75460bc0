import fs from 'node:fs';
import { migrate, NewerDatabaseError, schemaVersion, type Migration } from './migrate.js';
import { migrations as leoMigrations } from './migrations.js';
import { openSqlite, type Database, type Statement } from './sqlite.js';

export type { Database };

/**
 * Opens chat.db: checks the schema version before touching anything (a newer file is refused and left byte-for-byte
 * as it was), then WAL, foreign keys, a busy timeout, and the pending migrations. `checkpointPages`: the WAL pages past
 * which a commit checkpoints itself (SQLite's 1 000 unless given; the daemon checkpoints from its pool: wal-checkpoint.ts).
 */
export function openDatabase(
  file: string,
  migrations: readonly Migration[] = leoMigrations,
  { checkpointPages }: { checkpointPages?: number } = {},
): Database {
  if (!fs.existsSync(file)) {
    // Created 0600 before SQLite touches it; SQLite gives the -wal and -shm files the same mode.
    fs.writeFileSync(file, '', { mode: 0o600 });
  } else if (fs.statSync(file).size > 0) {
    const probe = openSqlite(file, { readonly: true });
    try {
      const found = schemaVersion(probe);
      if (found > migrations.length) throw new NewerDatabaseError(file, found, migrations.length);
    } finally {
      probe.close();
    }
  }
  const db = openSqlite(file);
  try {
    db.pragma('journal_mode = WAL');
    // NORMAL under WAL survives an application crash; see docs/ARCHITECTURE.md for the power-loss trade-off.
    db.pragma('synchronous = NORMAL');
    db.pragma('foreign_keys = ON');
    db.pragma('busy_timeout = 5000');
    if (checkpointPages !== undefined) db.pragma(`wal_autocheckpoint = ${checkpointPages}`);
    migrate(db, migrations, file);
    reusePreparedStatements(db);
    return db;
  } catch (err) {
    db.close();
    throw err;
  }
}

/** Distinct SQL texts kept compiled; Leo's stores use a few dozen, so this only bounds a runaway caller. */
const PREPARED_MAX = 512;

/**
 * Makes `db.prepare` hand back the compiled statement for SQL it has seen: the stores prepare as they go, and
 * compiling was a large share of a request (profiled: half of a history page, a quarter of a chat post, 1–1.7 ms of a
 * chat turn). Safe because no caller iterates a statement while reusing it (nothing uses `.iterate()`), and SQLite
 * recompiles a cached statement by itself after a schema change.
 */
function reusePreparedStatements(db: Database): void {
  const compile = db.prepare.bind(db);
  const cache = new Map<string, Statement>();
  db.prepare = (sql: string) => {
    let st = cache.get(sql);
    if (!st) {
      if (cache.size >= PREPARED_MAX) cache.delete(cache.keys().next().value!);
      cache.set(sql, (st = compile(sql)));
    }
    return st;
  };
}
