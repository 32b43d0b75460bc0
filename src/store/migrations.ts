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
  {
    name: 'agents',
    up(db) {
      // state: 'active' (should be running), 'stopped' (stopped on purpose: stays down), 'parked' (idle-suspended:
      // an inbound message wakes it). environments is a JSON array when the agent has its own override, else NULL;
      // env holds the spawn request's extra variables (JSON), kept so a restart runs with the same environment;
      // session_id is the harness's own conversation id (Claude's, from its SessionStart hook) that a restart resumes.
      db.exec(`
        CREATE TABLE agents (
          name        TEXT PRIMARY KEY,
          template    TEXT,
          repo        TEXT,
          branch      TEXT,
          workspace   TEXT,
          model       TEXT,
          harness     TEXT,
          environments TEXT,
          env         TEXT,
          session_id  TEXT,
          emoji       TEXT,
          color       TEXT,
          moved_to    TEXT,
          moved_at    TEXT,
          state       TEXT NOT NULL DEFAULT 'active' CHECK (state IN ('active', 'stopped', 'parked')),
          created_at  TEXT NOT NULL
        ) STRICT;
      `);
    },
  },
];
