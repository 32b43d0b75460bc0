import type { Database, OpenOptions, RunResult, Statement } from './sqlite.js';

/** What Leo uses of `node:sqlite` (Node 24), declared here: the project's @types/node is Node 20's. */
interface NodeSqlite {
  DatabaseSync: new (file: string, options: { readOnly: boolean; timeout: number }) => DatabaseSync;
}
interface DatabaseSync {
  prepare(sql: string): StatementSync;
  exec(sql: string): void;
  close(): void;
  readonly isOpen: boolean;
  readonly isTransaction: boolean;
}
interface StatementSync {
  run(...params: unknown[]): RunResult;
  get(...params: unknown[]): Row | unknown[] | undefined;
  all(...params: unknown[]): (Row | unknown[])[];
  setReturnArrays(on: boolean): void;
  setAllowUnknownNamedParameters(on: boolean): void;
}
type Row = Record<string, unknown>;

let loaded: NodeSqlite | undefined;

/**
 * `node:sqlite`, loaded once. Until a later 24.x made it a release candidate, loading it printed "SQLite is an
 * experimental feature" to every `leo` command's stderr; that one warning is dropped while it loads, any other
 * (and this one from anything loaded later) goes through.
 */
function nodeSqlite(): NodeSqlite {
  if (loaded) return loaded;
  const emit = process.emitWarning;
  process.emitWarning = function (this: NodeJS.Process, warning: string | Error, ...rest: unknown[]) {
    const type = typeof rest[0] === 'string' ? rest[0] : (rest[0] as { type?: string } | undefined)?.type;
    if (type === 'ExperimentalWarning' && String(warning).startsWith('SQLite ')) return;
    return (emit as (...args: unknown[]) => void).call(this, warning, ...rest);
  } as typeof process.emitWarning;
  try {
    return (loaded = process.getBuiltinModule('node:sqlite') as NodeSqlite);
  } finally {
    process.emitWarning = emit;
  }
}

export function openNodeSqlite(file: string, options: OpenOptions): Database {
  const { DatabaseSync } = nodeSqlite();
  // better-sqlite3's defaults, which a connection opened without Leo's pragmas (a read-only probe, doctor) relies on
  // too: a 5 s busy timeout (node:sqlite's is 0) and a 16 MB page cache (its build's; SQLite's own is 2 MB). Both
  // have foreign keys on and double-quoted strings refused.
  const db = sqlite(() => new DatabaseSync(file, { readOnly: options.readonly ?? false, timeout: 5000 }));
  db.exec('PRAGMA cache_size = -16000');
  return new NodeSqliteDatabase(db);
}

/** better-sqlite3's Database over `node:sqlite`, as far as Leo uses it. */
class NodeSqliteDatabase implements Database {
  private tx: { begin: StatementSync; commit: StatementSync; rollback: StatementSync } | undefined;
  private savepoint: { begin: StatementSync; commit: StatementSync; rollback: StatementSync } | undefined;

  constructor(private readonly db: DatabaseSync) {}

  get open(): boolean {
    return this.db.isOpen;
  }

  get inTransaction(): boolean {
    return this.db.isTransaction;
  }

  prepare(sql: string): Statement {
    return sqlite(() => new NodeSqliteStatement(this.db.prepare(sql)));
  }

  exec(sql: string): void {
    sqlite(() => this.db.exec(sql));
  }

  /** Compiled each time, as better-sqlite3 does: never from the statement cache, where `simple` would stick. */
  pragma(source: string, options: { simple?: boolean } = {}): unknown {
    const st = sqlite(() => new NodeSqliteStatement(this.db.prepare(`PRAGMA ${source}`)));
    return options.simple ? st.pluck().get() : st.all();
  }

  /** As better-sqlite3's: a savepoint inside a transaction; the rollback only while SQLite has not rolled back. */
  transaction<A extends unknown[], R>(fn: (...args: A) => R): (...args: A) => R {
    return (...args: A): R => {
      const steps = this.db.isTransaction
        ? (this.savepoint ??= this.steps('SAVEPOINT leo', 'RELEASE leo', 'ROLLBACK TO leo'))
        : (this.tx ??= this.steps('BEGIN', 'COMMIT', 'ROLLBACK'));
      sqlite(() => steps.begin.run());
      try {
        const result = fn(...args);
        if (result instanceof Promise) throw new TypeError('Transaction function cannot return a promise');
        sqlite(() => steps.commit.run());
        return result;
      } catch (err) {
        if (this.db.isTransaction) {
          steps.rollback.run();
          // ROLLBACK TO keeps the savepoint open; releasing it ends it, as a rolled-back transaction ends.
          if (steps === this.savepoint) steps.commit.run();
        }
        throw err;
      }
    };
  }

  private steps(begin: string, commit: string, rollback: string) {
    return { begin: this.db.prepare(begin), commit: this.db.prepare(commit), rollback: this.db.prepare(rollback) };
  }

  close(): void {
    this.db.close();
  }
}

/**
 * Binds as better-sqlite3 does where Leo relies on it: `undefined` is NULL (node:sqlite refuses it), and an object's
 * keys that the SQL does not name are ignored. Rows come back as plain objects, as better-sqlite3's do (node:sqlite's
 * have no prototype, which `assert.deepStrictEqual` and anything calling an Object method on a row would trip on).
 */
class NodeSqliteStatement implements Statement {
  private pluckFirst = false;

  constructor(private readonly st: StatementSync) {
    st.setAllowUnknownNamedParameters(true);
  }

  run(...params: unknown[]): RunResult {
    return sqlite(() => this.st.run(...bindable(params)));
  }

  get(...params: unknown[]): unknown {
    const row = sqlite(() => this.st.get(...bindable(params)));
    if (row === undefined) return undefined;
    return this.pluckFirst ? (row as unknown[])[0] : plain(row as Row);
  }

  all(...params: unknown[]): unknown[] {
    const rows = sqlite(() => this.st.all(...bindable(params)));
    return this.pluckFirst ? rows.map((r) => (r as unknown[])[0]) : rows.map((r) => plain(r as Row));
  }

  pluck(): Statement {
    if (!this.pluckFirst) this.st.setReturnArrays((this.pluckFirst = true));
    return this;
  }
}

/**
 * SQLite's primary result codes by number, and the constraint kinds Leo tells apart (an extended code is the primary
 * one plus kind << 8).
 */
const PRIMARY = (
  'OK ERROR INTERNAL PERM ABORT BUSY LOCKED NOMEM READONLY INTERRUPT IOERR CORRUPT NOTFOUND FULL CANTOPEN PROTOCOL ' +
  'EMPTY SCHEMA TOOBIG CONSTRAINT MISMATCH MISUSE NOLFS AUTH FORMAT RANGE NOTADB'
).split(' ');
const CONSTRAINT =
  ' CHECK COMMITHOOK FOREIGNKEY FUNCTION NOTNULL PRIMARYKEY TRIGGER UNIQUE VTAB ROWID PINNED DATATYPE'.split(' ');

/**
 * Runs a node:sqlite call; its error (code ERR_SQLITE_ERROR, the number in `errcode`) leaves with `code` as
 * better-sqlite3's SqliteError has it, the result code's name (SQLITE_CONSTRAINT_UNIQUE), which the stores test for.
 * An extended code other than a constraint's gets its primary code's name.
 */
function sqlite<T>(call: () => T): T {
  try {
    return call();
  } catch (err) {
    const e = err as { code?: string; errcode?: unknown };
    if (e?.code === 'ERR_SQLITE_ERROR' && typeof e.errcode === 'number') {
      const primary = PRIMARY[e.errcode & 0xff];
      const kind = primary === 'CONSTRAINT' ? CONSTRAINT[e.errcode >> 8] : '';
      if (primary) e.code = `SQLITE_${primary}${kind ? `_${kind}` : ''}`;
    }
    throw err;
  }
}

const plain = (row: Row): Row => ({ ...row });

/** `params` is the call's own rest array, so it is changed in place; a named object is copied, never changed. */
function bindable(params: unknown[]): unknown[] {
  for (let i = 0; i < params.length; i++) {
    const p = params[i];
    if (p === undefined) params[i] = null;
    else if (typeof p === 'object' && p !== null && !ArrayBuffer.isView(p) && holdsUndefined(p as Row))
      params[i] = Object.fromEntries(Object.entries(p).map(([k, v]) => [k, v === undefined ? null : v]));
  }
  return params;
}

function holdsUndefined(named: Row): boolean {
  for (const key in named) if (named[key] === undefined) return true;
  return false;
}
