import type { Database } from '../../store/database.js';
import type { TranscriptMark } from './reply-capture.js';

/** A message typed into an agent whose reply may still come. */
export interface AwaitingReply {
  messageId: string;
  /** The exact text typed. */
  prompt: string;
  /** When typing it began (ms). */
  since: number;
  /** False while it is being typed: its reply, if any, is posted once it is marked delivered. */
  delivered: boolean;
}

/** Where an agent's turns are recorded, and the transcript prompt of the last turn settled there. */
export interface AgentTranscript {
  path: string | null;
  settled?: TranscriptMark;
}

interface AwaitingRow {
  message_id: string;
  prompt: string;
  since_ms: number;
  delivered: number;
}

/** chat.db's side of reply capture (tables reply_awaiting and reply_transcripts), so it survives a restart. */
export class ReplyStore {
  constructor(private readonly db: Database) {}

  /** Records a message being typed into `agent`; only the newest `keep` of the agent's stay. */
  add(agent: string, messageId: string, prompt: string, since: number, keep: number): void {
    // One transaction, and the rows past `keep` cut below one index seek: deleting those NOT IN the newest `keep`
    // built that list on every send (the soak's profile: ~10 % of the main thread with 100 agents that never reply).
    this.db.transaction(() => {
      this.db
        .prepare('INSERT OR REPLACE INTO reply_awaiting (message_id, agent, prompt, since_ms) VALUES (?, ?, ?, ?)')
        .run(messageId, agent, prompt, since);
      this.db
        .prepare(
          `DELETE FROM reply_awaiting WHERE agent = ? AND seq <=
             (SELECT seq FROM reply_awaiting WHERE agent = ? ORDER BY seq DESC LIMIT 1 OFFSET ?)`,
        )
        .run(agent, agent, keep);
    })();
  }

  markDelivered(messageId: string): boolean {
    return this.db.prepare('UPDATE reply_awaiting SET delivered = 1 WHERE message_id = ?').run(messageId).changes > 0;
  }

  remove(messageId: string): boolean {
    return this.db.prepare('DELETE FROM reply_awaiting WHERE message_id = ?').run(messageId).changes > 0;
  }

  /** The agent's awaiting messages in the order they were typed. */
  awaiting(agent: string): AwaitingReply[] {
    const rows = this.db
      .prepare('SELECT message_id, prompt, since_ms, delivered FROM reply_awaiting WHERE agent = ? ORDER BY seq')
      .all(agent) as AwaitingRow[];
    return rows.map((r) => ({
      messageId: r.message_id,
      prompt: r.prompt,
      since: r.since_ms,
      delivered: r.delivered === 1,
    }));
  }

  agentsAwaiting(): string[] {
    return this.db.prepare('SELECT DISTINCT agent FROM reply_awaiting ORDER BY agent').pluck().all() as string[];
  }

  /** At start-up: messages that were being typed when the daemon stopped were failed, and wait for nothing. */
  removeUndelivered(): void {
    this.db.prepare('DELETE FROM reply_awaiting WHERE delivered = 0').run();
  }

  forget(agent: string): void {
    this.db.prepare('DELETE FROM reply_awaiting WHERE agent = ?').run(agent);
    this.db.prepare('DELETE FROM reply_transcripts WHERE agent = ?').run(agent);
  }

  transcript(agent: string): AgentTranscript {
    const r = this.db
      .prepare('SELECT path, settled_uuid, settled_at FROM reply_transcripts WHERE agent = ?')
      .get(agent) as { path: string | null; settled_uuid: string | null; settled_at: string | null } | undefined;
    if (!r) return { path: null };
    const settled = {
      ...(r.settled_uuid !== null ? { uuid: r.settled_uuid } : {}),
      ...(r.settled_at !== null ? { timestamp: r.settled_at } : {}),
    };
    return { path: r.path, ...(Object.keys(settled).length ? { settled } : {}) };
  }

  setPath(agent: string, path: string): void {
    this.db
      .prepare(
        `INSERT INTO reply_transcripts (agent, path) VALUES (?, ?) ON CONFLICT (agent) DO UPDATE SET path = excluded.path`,
      )
      .run(agent, path);
  }

  setSettled(agent: string, mark: TranscriptMark): void {
    this.db
      .prepare(
        `INSERT INTO reply_transcripts (agent, settled_uuid, settled_at) VALUES (?, ?, ?)
         ON CONFLICT (agent) DO UPDATE SET settled_uuid = excluded.settled_uuid, settled_at = excluded.settled_at`,
      )
      .run(agent, mark.uuid ?? null, mark.timestamp ?? null);
  }

  /** Runs `fn` in one transaction: a reply and the end of its wait commit together, so it is never posted twice. */
  atomically<T>(fn: () => T): T {
    return this.db.transaction(fn)();
  }
}
