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
  {
    name: 'chat',
    up(db) {
      // One row per thread message (the spec's Message); JSON columns hold answer/input/permission as sent on the
      // wire. delivery_note is internal: why an inbound message failed, for the log and the system note.
      db.exec(`
        CREATE TABLE messages (
          id            TEXT PRIMARY KEY,
          agent         TEXT NOT NULL,
          direction     TEXT NOT NULL CHECK (direction IN ('in', 'out')),
          kind          TEXT NOT NULL CHECK (kind IN ('text', 'voice', 'file', 'task', 'ask', 'permission', 'system')),
          text          TEXT NOT NULL DEFAULT '',
          sender        TEXT,
          transcript    TEXT,
          reply_to      TEXT,
          task          TEXT,
          run_id        TEXT,
          state         TEXT NOT NULL DEFAULT '',
          answer        TEXT,
          input         TEXT,
          permission    TEXT,
          ts            TEXT NOT NULL,
          deadline      TEXT,
          closed_reason TEXT,
          delivery_note TEXT
        ) STRICT;
        CREATE INDEX messages_thread ON messages (agent, id);
        CREATE INDEX messages_pending ON messages (state) WHERE state IN ('pending', 'open');
        CREATE TABLE attachments (
          id         TEXT PRIMARY KEY,
          message_id TEXT REFERENCES messages (id),
          agent      TEXT NOT NULL,
          filename   TEXT NOT NULL,
          mime       TEXT NOT NULL,
          bytes      INTEGER NOT NULL,
          path       TEXT NOT NULL,
          available  INTEGER NOT NULL DEFAULT 1,
          created_at TEXT NOT NULL
        ) STRICT;
        CREATE INDEX attachments_message ON attachments (message_id);
        CREATE TABLE read_markers (
          agent        TEXT PRIMARY KEY,
          last_read_id TEXT NOT NULL
        ) STRICT;
        CREATE TABLE reminders (
          id         TEXT PRIMARY KEY,
          agent      TEXT NOT NULL,
          text       TEXT NOT NULL,
          at         TEXT NOT NULL,
          at_ms      INTEGER NOT NULL,
          task       TEXT,
          run_id     TEXT,
          state      TEXT NOT NULL DEFAULT 'scheduled' CHECK (state IN ('scheduled', 'fired', 'cancelled')),
          created_at TEXT NOT NULL
        ) STRICT;
        CREATE INDEX reminders_due ON reminders (at_ms) WHERE state = 'scheduled';
      `);
    },
  },
  {
    name: 'push subscriptions',
    up(db) {
      // body is the subscription as registered (endpoint and keys, or url and secret): secret, never served back.
      db.exec(`
        CREATE TABLE push_subscriptions (
          id         TEXT PRIMARY KEY,
          provider   TEXT NOT NULL CHECK (provider IN ('web-push', 'webhook')),
          body       TEXT NOT NULL,
          created_at TEXT NOT NULL
        ) STRICT;
      `);
    },
  },
  {
    name: 'task runs',
    up(db) {
      // Finished task runs (durable task history), topping up recent_runs after the in-memory run log evicts or
      // never saw them. started_at, ended_at and duration_ms are NULL for entries recorded without timing, which
      // stay unknown rather than being invented. completed_at is UTC ISO 8601 with milliseconds, so text order is
      // time order even across DST changes.
      db.exec(`
        CREATE TABLE task_runs (
          id           TEXT PRIMARY KEY,
          task         TEXT NOT NULL,
          status       TEXT NOT NULL CHECK (status IN ('succeeded', 'failed')),
          started_at   TEXT,
          ended_at     TEXT,
          duration_ms  INTEGER,
          completed_at TEXT NOT NULL,
          error        TEXT,
          workspace    TEXT NOT NULL DEFAULT '',
          model        TEXT NOT NULL DEFAULT '',
          harness      TEXT NOT NULL DEFAULT '',
          attempts     INTEGER,
          log_path     TEXT
        ) STRICT;
        CREATE INDEX task_runs_completed ON task_runs (completed_at);
        CREATE INDEX task_runs_task_completed ON task_runs (task, completed_at);
      `);
    },
  },
  {
    name: 'chat sessions',
    up(db) {
      // The agent chat endpoint's sessions (agent-chat-endpoint.md). overrides holds the sticky LLM settings a PATCH
      // set (JSON); resume_id is the engine's own conversation id (claude-cli) for the next turn. Messages keep
      // their integer ids: the wire shape has them as numbers.
      db.exec(`
        CREATE TABLE chat_sessions (
          id                  TEXT PRIMARY KEY,
          agent_name          TEXT NOT NULL,
          mode                TEXT NOT NULL DEFAULT 'chat',
          status              TEXT NOT NULL CHECK (status IN ('active', 'closed')),
          model               TEXT NOT NULL DEFAULT '',
          total_input_tokens  INTEGER NOT NULL DEFAULT 0,
          total_output_tokens INTEGER NOT NULL DEFAULT 0,
          cost                REAL NOT NULL DEFAULT 0,
          message_count       INTEGER NOT NULL DEFAULT 0,
          overrides           TEXT,
          resume_id           TEXT,
          created_at          TEXT NOT NULL,
          updated_at          TEXT NOT NULL
        ) STRICT;
        CREATE INDEX chat_sessions_agent ON chat_sessions (agent_name, updated_at);
        CREATE TABLE chat_session_messages (
          id               INTEGER PRIMARY KEY AUTOINCREMENT,
          session_id       TEXT NOT NULL REFERENCES chat_sessions (id) ON DELETE CASCADE,
          role             TEXT NOT NULL CHECK (role IN ('user', 'assistant', 'tool')),
          content          TEXT,
          tool_calls       TEXT,
          tool_call_id     TEXT,
          thinking_content TEXT,
          thinking_tokens  INTEGER,
          finish_reason    TEXT,
          iteration        INTEGER,
          token_usage      TEXT,
          created_at       TEXT NOT NULL
        ) STRICT;
        CREATE INDEX chat_session_messages_session ON chat_session_messages (session_id, id);
      `);
    },
  },
  {
    name: 'reply capture',
    up(db) {
      // Claude replies survive a daemon restart (leo-chat.md, Replies). reply_awaiting: each message typed into an
      // agent, with the exact text typed, until its turn's reply is posted or the turn is settled without one; seq is
      // the order they were typed in, since_ms when typing began, delivered 0 while it is being typed.
      // reply_transcripts: an agent's transcript file (from its SessionStart or Stop hook) and the transcript prompt
      // the last settled turn began with (its line's uuid and time), after which the next turns are looked for.
      db.exec(`
        CREATE TABLE reply_awaiting (
          seq        INTEGER PRIMARY KEY,
          message_id TEXT NOT NULL UNIQUE,
          agent      TEXT NOT NULL,
          prompt     TEXT NOT NULL,
          since_ms   INTEGER NOT NULL,
          delivered  INTEGER NOT NULL DEFAULT 0
        ) STRICT;
        CREATE INDEX reply_awaiting_agent ON reply_awaiting (agent, seq);
        CREATE TABLE reply_transcripts (
          agent        TEXT PRIMARY KEY,
          path         TEXT,
          settled_uuid TEXT,
          settled_at   TEXT
        ) STRICT;
      `);
    },
  },
  {
    name: 'agent stop reason',
    up(db) {
      // Why the daemon stopped an agent by itself (a harness that kept exiting at start, a failed restore), so /state,
      // `leo agent list` and the thread can say it after a daemon restart too. NULL for every other state.
      db.exec(`ALTER TABLE agents ADD COLUMN stop_reason TEXT`);
    },
  },
  {
    name: 'push subscription owners',
    up(db) {
      // A subscription belongs to the device token that registered it (NULL: the operator's or the socket's) and is
      // deleted with it. Rows from before had no owner and may have been registered by a device since revoked, which
      // would keep receiving every agent message: they are dropped, and devices register again (docs/SECURITY.md).
      db.exec(`
        DELETE FROM push_subscriptions;
        ALTER TABLE push_subscriptions ADD COLUMN token_id TEXT REFERENCES tokens (id) ON DELETE CASCADE;
        CREATE INDEX push_subscriptions_token ON push_subscriptions (token_id);
      `);
    },
  },
  {
    name: 'message client ids',
    up(db) {
      // A client's own id for a message it sends (its outbox entry), unique per thread: a repeat of the send after a
      // lost answer finds the message already stored instead of storing and delivering it twice.
      db.exec(`
        ALTER TABLE messages ADD COLUMN client_id TEXT;
        CREATE UNIQUE INDEX messages_client_id ON messages (agent, client_id) WHERE client_id IS NOT NULL;
      `);
    },
  },
  {
    name: 'chat session errors',
    up(db) {
      // How a session's last turn failed or was cancelled ({error, code, details?, at} as JSON), so a poller of a
      // fire-and-forget turn learns it ended; NULL while the last turn succeeded or one is starting.
      db.exec(`ALTER TABLE chat_sessions ADD COLUMN last_error TEXT`);
    },
  },
  {
    name: 'pairing codes',
    up(db) {
      // One-time codes that pair a browser (issue 16): only the SHA-256 of the code is kept, and redeeming one deletes
      // its row in the same statement that reads it, so a code works once. expires_ms is epoch milliseconds.
      db.exec(`
        CREATE TABLE pairing_codes (
          hash        TEXT PRIMARY KEY,
          name        TEXT NOT NULL,
          created_at  TEXT NOT NULL,
          expires_ms  INTEGER NOT NULL
        ) STRICT;
      `);
    },
  },
  {
    name: 'usage turns',
    up(db) {
      // One row per agent turn a harness reported usage for (issue 18). turn_key is the harness's own id of the turn
      // (Claude's prompt id, Codex's turn id, opencode's), so a Stop replayed or seen again after a restart is stored
      // once. input_tokens excludes cache reads and writes; cost_usd is NULL when nothing priced the turn. at_ms is
      // when the daemon recorded it (epoch ms), which the per-day sums group by.
      db.exec(`
        CREATE TABLE usage_turns (
          agent              TEXT NOT NULL,
          turn_key           TEXT NOT NULL,
          harness            TEXT NOT NULL,
          model              TEXT,
          at_ms              INTEGER NOT NULL,
          input_tokens       INTEGER NOT NULL,
          output_tokens      INTEGER NOT NULL,
          cache_read_tokens  INTEGER NOT NULL,
          cache_write_tokens INTEGER NOT NULL,
          cost_usd           REAL,
          PRIMARY KEY (agent, turn_key)
        ) STRICT;
        CREATE INDEX usage_turns_agent_at ON usage_turns (agent, at_ms);
      `);
    },
  },
  {
    name: 'device fleet scope',
    up(db) {
      // Fleet writes (spawn, environments, lifecycle, task runs) became a scope a device is granted at pairing (issue
      // 29). Devices paired before it had those writes: they keep them, so an upgrade does not lock the owner's phone
      // out of the fleet; `leo device list` shows who holds it and `leo device fleet <name> off` takes it back. A code
      // carries the scope its device will get.
      db.exec(`
        ALTER TABLE tokens ADD COLUMN fleet INTEGER NOT NULL DEFAULT 0;
        UPDATE tokens SET fleet = 1 WHERE kind = 'device';
        ALTER TABLE pairing_codes ADD COLUMN fleet INTEGER NOT NULL DEFAULT 0;
      `);
    },
  },
  {
    name: 'peer tokens and host identity',
    rebuildsTables: true,
    up(db) {
      // Several machines (issue 31): a hub holds a `peer` token on each host it follows, issued for a one-time join
      // code. The tokens table is rebuilt to admit the kind (its CHECK cannot be altered); a code now says which kind
      // of token it is redeemed for. meta keeps this installation's own facts, first its host_id. hosts is the hub's
      // side: what it learnt of each host it follows (its URL is in leo.yaml, its peer token in a 0600 file).
      db.exec(`
        CREATE TABLE tokens_next (
          id          TEXT PRIMARY KEY,
          kind        TEXT NOT NULL CHECK (kind IN ('device', 'client', 'peer')),
          name        TEXT NOT NULL,
          hash        TEXT NOT NULL UNIQUE,
          can_post    INTEGER NOT NULL DEFAULT 0,
          created_at  TEXT NOT NULL,
          last_used_at TEXT,
          fleet       INTEGER NOT NULL DEFAULT 0
        ) STRICT;
        INSERT INTO tokens_next (id, kind, name, hash, can_post, created_at, last_used_at, fleet)
          SELECT id, kind, name, hash, can_post, created_at, last_used_at, fleet FROM tokens;
        DROP TABLE tokens;
        ALTER TABLE tokens_next RENAME TO tokens;
        CREATE UNIQUE INDEX tokens_kind_name ON tokens (kind, name);
        ALTER TABLE pairing_codes ADD COLUMN kind TEXT NOT NULL DEFAULT 'device' CHECK (kind IN ('device', 'peer'));
        CREATE TABLE meta (
          key   TEXT PRIMARY KEY,
          value TEXT NOT NULL
        ) STRICT;
        CREATE TABLE hosts (
          name          TEXT PRIMARY KEY,
          host_id       TEXT NOT NULL,
          added_at      TEXT NOT NULL,
          last_seen_at  TEXT
        ) STRICT;
      `);
    },
  },
  {
    name: 'hub cursors',
    up(db) {
      // A hub resumes each host where it stopped (issue 31, Fan-in): the boot and seq it had read, and the host's fleet
      // as those events left it (JSON, already renamed to name@host), saved together so they always agree.
      db.exec(`
        ALTER TABLE hosts ADD COLUMN cursor_boot TEXT;
        ALTER TABLE hosts ADD COLUMN cursor_seq INTEGER;
        ALTER TABLE hosts ADD COLUMN view TEXT;
      `);
    },
  },
  {
    name: 'attachment order',
    up(db) {
      // A message lists its files in the order its sender gave them (0-based), not in upload order: uploads picked
      // together finish in any order. NULL for rows from before, which keep their upload order.
      db.exec(`ALTER TABLE attachments ADD COLUMN position INTEGER`);
    },
  },
  {
    name: 'agent moves',
    up(db) {
      // Moving agents between hosts (issue 32). moved_as: the name a moved agent took on its new host when the move
      // gave it another (`as`), so what is sent to its old address reaches it (moved_to and moved_at were in the first
      // agents table). moves: each move or copy this hub runs, its whole operation as JSON (src/wire/move.ts) beside
      // the columns it is found by, so a restarted hub resumes each one by its id. source is the agent's address as
      // the hub names it (`name@host`), not a name of this daemon's: a rename here does not touch it.
      db.exec(`
        ALTER TABLE agents ADD COLUMN moved_as TEXT;
        CREATE TABLE moves (
          id         TEXT PRIMARY KEY,
          source     TEXT NOT NULL,
          step       TEXT NOT NULL,
          settled    INTEGER NOT NULL,
          body       TEXT NOT NULL,
          created_at TEXT NOT NULL,
          updated_at TEXT NOT NULL
        ) STRICT;
        CREATE INDEX moves_unsettled ON moves (source) WHERE settled = 0;
      `);
    },
  },
];
