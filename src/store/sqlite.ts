import { createRequire } from 'node:module';
import type BetterSqlite3 from 'better-sqlite3';
import { openNodeSqlite } from './node-sqlite.js';

/**
 * The part of a SQLite connection Leo uses, shaped as better-sqlite3's so the stores read the same on either driver:
 * better-sqlite3 on Node 20 and 22, Node's own `node:sqlite` from Node 24, where better-sqlite3 12 aborts the process
 * (docs/DECISIONS.md, "Node versions").
 */
export interface Database {
  prepare(sql: string): Statement;
  exec(sql: string): unknown;
  /** `fn` wrapped in BEGIN…COMMIT (a savepoint when already in one), rolled back when it throws. */
  transaction<A extends unknown[], R>(fn: (...args: A) => R): (...args: A) => R;
  /** `PRAGMA <source>`: every row, or with `simple` the first column of the first. */
  pragma(source: string, options?: { simple?: boolean }): unknown;
  close(): void;
  readonly open: boolean;
  readonly inTransaction: boolean;
}

/** Parameters are positional values or one object of named ones (`@name` in the SQL); `undefined` binds NULL. */
export interface Statement {
  run(...params: unknown[]): RunResult;
  /** The first row, or undefined. */
  get(...params: unknown[]): unknown;
  all(...params: unknown[]): unknown[];
  /**
   * From now on reads return each row's first column instead of the row. As with better-sqlite3 this switches the
   * statement itself, hence (through the statement cache of `openDatabase`) every later `prepare` of the same SQL.
   */
  pluck(): Statement;
}

export interface RunResult {
  changes: number;
  lastInsertRowid: number | bigint;
}

export interface OpenOptions {
  /** Read-only, and the file must exist. */
  readonly?: boolean;
}

/** The driver this Node runs safely. */
export const sqliteDriver = Number(process.versions.node.split('.')[0]) >= 24 ? 'node:sqlite' : 'better-sqlite3';

export function openSqlite(file: string, options: OpenOptions = {}): Database {
  if (sqliteDriver === 'node:sqlite') return openNodeSqlite(file, options);
  // Required only here, so a Node that never takes this path never loads the addon (built for one Node ABI).
  const Driver = createRequire(import.meta.url)('better-sqlite3') as typeof BetterSqlite3;
  return new Driver(file, options.readonly ? { readonly: true, fileMustExist: true } : {});
}
