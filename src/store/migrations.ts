import type { Migration } from './migrate.js';

/**
 * chat.db's schema history. Append only: a released step is never edited, because databases in the field have
 * already run it. Each later issue's tables arrive as new steps.
 */
export const migrations: readonly Migration[] = [
  {
    name: 'tokens',
    up(db) {
      db.exec(`
        CREATE TABLE tokens (
          id          TEXT PRIMARY KEY,
          kind        TEXT NOT NULL CHECK (kind IN ('device', 'client')),
          name        TEXT NOT NULL,
          hash        TEXT NOT NULL UNIQUE,
          can_post    INTEGER NOT NULL DEFAULT 0,
          created_at  TEXT NOT NULL,
          last_used_at TEXT
        ) STRICT;
        CREATE UNIQUE INDEX tokens_kind_name ON tokens (kind, name);
      `);
    },
  },
];
