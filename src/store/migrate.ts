import type { Database } from './sqlite.js';

/** One schema step. Step i (0-based) takes the database from user_version i to i+1. */
export interface Migration {
  name: string;
  up(db: Database): void;
  /**
   * The step rebuilds a table others refer to (SQLite cannot change a CHECK in place): foreign keys are off while it
   * runs, as SQLite's own procedure asks, or dropping the old table would cascade into the rows referring to it. They
   * are checked before the step commits.
   */
  rebuildsTables?: boolean;
}

export class NewerDatabaseError extends Error {
  constructor(
    readonly file: string,
    readonly found: number,
    readonly supported: number,
  ) {
    super(
      `${file} is at schema version ${found}, but this leo only knows versions up to ${supported}; ` +
        `it was written by a newer leo. Upgrade leo (the file was left untouched).`,
    );
    this.name = 'NewerDatabaseError';
  }
}

export function schemaVersion(db: Database): number {
  return db.pragma('user_version', { simple: true }) as number;
}

/**
 * Applies each pending step in its own transaction, with user_version bumped inside that same transaction, so a
 * step that throws leaves the database exactly at the previous version.
 */
export function migrate(db: Database, migrations: readonly Migration[], file: string): { from: number; to: number } {
  const from = schemaVersion(db);
  if (from > migrations.length) throw new NewerDatabaseError(file, from, migrations.length);
  for (let v = from; v < migrations.length; v++) {
    const step = migrations[v]!;
    // The pragma is a no-op inside a transaction, so it is set around it.
    if (step.rebuildsTables) db.pragma('foreign_keys = OFF');
    try {
      db.transaction(() => {
        step.up(db);
        if (step.rebuildsTables && (db.pragma('foreign_key_check') as unknown[]).length)
          throw new Error(`migration "${step.name}" left rows whose foreign keys point nowhere`);
        db.pragma(`user_version = ${v + 1}`);
      })();
    } finally {
      if (step.rebuildsTables) db.pragma('foreign_keys = ON');
    }
  }
  return { from, to: migrations.length };
}
