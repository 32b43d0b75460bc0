import type { Database, OpenOptions, RunResult, Statement } from './sqlite.js';

/** What Leo uses of `node:sqlite` (Node 24), declared here: the project's @types/node is Node 20's. */
interface NodeSqlite {
  DatabaseSync: new (file: string, options: { readOnly: boolean }) => DatabaseSync;
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
  return new NodeSqliteDatabase(new (nodeSqlite().DatabaseSync)(file, { readOnly: options.readonly ?? false }));
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
    return new NodeSqliteStatement(this.db, sql, false);
  }

  exec(sql: string): void {
    this.db.exec(sql);
  }

  pragma(source: string, options: { simple?: boolean } = {}): unknown {
    const st = this.db.prepare(`PRAGMA ${source}`);
    if (!options.simple) return st.all().map(plain);
    st.setReturnArrays(true);
    return (st.get() as unknown[] | undefined)?.[0];
  }

  /** As better-sqlite3's: a savepoint inside a transaction; the rollback only while SQLite has not rolled back. */
  transaction<A extends unknown[], R>(fn: (...args: A) => R): (...args: A) => R {
    return (...args: A): R => {
      const steps = this.db.isTransaction
        ? (this.savepoint ??= this.steps('SAVEPOINT leo', 'RELEASE leo', 'ROLLBACK TO leo'))
        : (this.tx ??= this.steps('BEGIN', 'COMMIT', 'ROLLBACK'));
      steps.begin.run();
      try {
        const result = fn(...args);
        if (result instanceof Promise) throw new TypeError('Transaction function cannot return a promise');
        steps.commit.run();
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
  private readonly st: StatementSync;
  private plucked: NodeSqliteStatement | undefined;

  constructor(
    private readonly db: DatabaseSync,
    private readonly sql: string,
    private readonly pluckFirst: boolean,
  ) {
    this.st = db.prepare(sql);
    this.st.setAllowUnknownNamedParameters(true);
    if (pluckFirst) this.st.setReturnArrays(true);
  }

  run(...params: unknown[]): RunResult {
    return this.st.run(...bindable(params));
  }

  get(...params: unknown[]): unknown {
    const row = this.st.get(...bindable(params));
    if (row === undefined) return undefined;
    return this.pluckFirst ? (row as unknown[])[0] : plain(row as Row);
  }

  all(...params: unknown[]): unknown[] {
    const rows = this.st.all(...bindable(params));
    return this.pluckFirst ? rows.map((r) => (r as unknown[])[0]) : rows.map((r) => plain(r as Row));
  }

  /** A twin compiled to return arrays, so this statement's own reads stay rows. */
  pluck(): Statement {
    return (this.plucked ??= new NodeSqliteStatement(this.db, this.sql, true));
  }
}

const plain = (row: Row | unknown[]): Row => ({ ...(row as Row) });

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
