import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { openSqlite, sqliteDriver, type Database } from '../../src/store/sqlite.js';

// The same promises on whichever driver this Node runs (better-sqlite3 on 20 and 22, node:sqlite on 24): the stores
// are written against them, and the Node 24 tier runs this file there.
describe(`the SQLite seam (${sqliteDriver})`, () => {
  let dir: string;
  let db: Database;

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'leo-sqlite-'));
    db = openSqlite(path.join(dir, 'x.db'));
    db.exec('CREATE TABLE notes (id INTEGER PRIMARY KEY, name TEXT UNIQUE, body TEXT)');
  });
  afterEach(() => {
    if (db.open) db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('binds positional and named values, undefined as NULL, and ignores names the SQL does not use', () => {
    const add = db.prepare('INSERT INTO notes (name, body) VALUES (@name, @body)');
    assert.deepEqual(add.run({ name: 'a', body: undefined, unused: 1 }), { changes: 1, lastInsertRowid: 1 });
    db.prepare('INSERT INTO notes (name, body) VALUES (?, ?)').run('b', undefined);
    assert.deepEqual(db.prepare('SELECT * FROM notes ORDER BY id').all(), [
      { id: 1, name: 'a', body: null },
      { id: 2, name: 'b', body: null },
    ]);
    assert.equal(db.prepare('SELECT body FROM notes WHERE id = 99').get(), undefined);
  });

  it('rows are plain objects; pluck switches the statement to its first column', () => {
    db.prepare("INSERT INTO notes (name, body) VALUES ('a', 'x'), ('b', 'y')").run();
    const row = db.prepare('SELECT name, body FROM notes WHERE id = 1').get() as object;
    assert.equal(Object.getPrototypeOf(row), Object.prototype);
    const names = db.prepare('SELECT name, body FROM notes ORDER BY id');
    assert.deepEqual(names.all(), [
      { name: 'a', body: 'x' },
      { name: 'b', body: 'y' },
    ]);
    assert.equal(names.pluck(), names);
    assert.deepEqual(names.all(), ['a', 'b']);
    assert.equal(names.get(), 'a');
  });

  it('a transaction commits, rolls back what it did when it throws, and nests as a savepoint', () => {
    const add = db.prepare('INSERT INTO notes (name) VALUES (?)');
    const names = () => db.prepare('SELECT name FROM notes ORDER BY id').pluck().all();
    assert.equal(
      db.transaction((n: string) => {
        add.run(n);
        assert.equal(db.inTransaction, true);
        return 7;
      })('kept'),
      7,
    );
    assert.throws(
      () =>
        db.transaction(() => {
          add.run('undone');
          throw new Error('boom');
        })(),
      /boom/,
    );
    db.transaction(() => {
      add.run('outer');
      assert.throws(() =>
        db.transaction(() => {
          add.run('inner');
          throw new Error('inner');
        })(),
      );
    })();
    assert.deepEqual(names(), ['kept', 'outer']);
    assert.equal(db.inTransaction, false);
    assert.throws(() => db.transaction(async () => add.run('async'))(), /cannot return a promise/);
    assert.deepEqual(names(), ['kept', 'outer']);
  });

  it('errors carry the SQLite result code by name', () => {
    db.prepare("INSERT INTO notes (id, name) VALUES (1, 'a')").run();
    const code = (f: () => unknown) => {
      try {
        f();
      } catch (err) {
        return (err as { code?: string }).code;
      }
      return 'no error';
    };
    assert.equal(
      code(() => db.prepare("INSERT INTO notes (name) VALUES ('a')").run()),
      'SQLITE_CONSTRAINT_UNIQUE',
    );
    assert.equal(
      code(() => db.prepare('INSERT INTO notes (id) VALUES (1)').run()),
      'SQLITE_CONSTRAINT_PRIMARYKEY',
    );
    assert.equal(
      code(() => db.exec('SELECT nonsense FROM')),
      'SQLITE_ERROR',
    );
  });

  it('pragma gives every row, or the first value with simple; defaults are alike; read-only refuses writes', () => {
    assert.equal(db.pragma('foreign_keys', { simple: true }), 1);
    assert.equal(db.pragma('cache_size', { simple: true }), -16000);
    assert.equal((db.pragma('table_info(notes)') as unknown[]).length, 3);
    assert.equal(db.pragma('busy_timeout', { simple: true }), 5000);
    db.close();
    assert.equal(db.open, false);
    const ro = openSqlite(path.join(dir, 'x.db'), { readonly: true });
    try {
      assert.throws(() => ro.exec("INSERT INTO notes (name) VALUES ('z')"), { code: 'SQLITE_READONLY' });
    } finally {
      ro.close();
    }
    assert.throws(() => openSqlite(path.join(dir, 'missing.db'), { readonly: true }));
  });
});
