import { IN_MESSAGE_ORDER } from '../attachments/attachments.js';
import type { Clock } from '../../core/clock.js';
import { newId } from '../../core/ids.js';
import { rfc3339 } from '../../core/time.js';
import type { Database } from '../../store/database.js';
import type { AttachmentRef, Message, MessagePage, MessageState } from '../../wire/message.js';

interface Row {
  id: string;
  agent: string;
  direction: 'in' | 'out';
  kind: Message['kind'];
  text: string;
  sender: string | null;
  client_id: string | null;
  transcript: string | null;
  reply_to: string | null;
  task: string | null;
  run_id: string | null;
  state: MessageState;
  answer: string | null;
  input: string | null;
  permission: string | null;
  ts: string;
  deadline: string | null;
  closed_reason: Message['closed_reason'] | null;
  delivery_note: string | null;
}

export type NewMessage = Omit<Message, 'id' | 'ts' | 'attachments'> & { attachmentIds?: string[] };

/** `older`: pass as `before` for older messages (null when none); `newer`: as `after` (null at the newest). */
export type Page = MessagePage;

/** delivery_note of a message a route has started on (see markDeliveryStarted). */
export const DELIVERY_STARTED = 'delivery started';

/**
 * The condition of the partial index messages_pending. SQLite uses a partial index only for a query that names its
 * condition: `state = 'open'` alone scanned every message ever stored, on every delivery's look for an open prompt
 * (the soak's profile: 16 % of the main thread). `+agent` keeps an agent's query on it too, not on its whole thread.
 */
const WAITING = `state IN ('pending', 'open')`;

const OPTIONAL = [
  'sender',
  'client_id',
  'transcript',
  'reply_to',
  'task',
  'run_id',
  'deadline',
  'closed_reason',
] as const;

/** chat.db's messages, attachments and read markers. Messages are kept indefinitely. */
export class ChatStore {
  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
  ) {}

  insert(m: NewMessage): Message {
    const id = newId(this.clock.now());
    const row: Row = {
      id,
      agent: m.agent,
      direction: m.direction,
      kind: m.kind,
      text: m.text,
      sender: m.sender ?? null,
      client_id: m.client_id ?? null,
      transcript: m.transcript ?? null,
      reply_to: m.reply_to ?? null,
      task: m.task ?? null,
      run_id: m.run_id ?? null,
      state: m.state,
      answer: m.answer ? JSON.stringify(m.answer) : null,
      input: m.input ? JSON.stringify(m.input) : null,
      permission: m.permission ? JSON.stringify(m.permission) : null,
      ts: rfc3339(this.clock.now()),
      deadline: m.deadline ?? null,
      closed_reason: m.closed_reason ?? null,
      delivery_note: null,
    };
    const cols = Object.keys(row);
    this.db.transaction(() => {
      this.db
        .prepare(`INSERT INTO messages (${cols.join(', ')}) VALUES (${cols.map((c) => `@${c}`).join(', ')})`)
        .run(row);
      if (m.attachmentIds?.length) {
        // Unsent uploads, or a failed inbound message's files being resent (AttachmentStore.claim checked which).
        const claim = this.db.prepare(
          `UPDATE attachments SET message_id = ?, position = ? WHERE id = ? AND (message_id IS NULL OR message_id IN
             (SELECT id FROM messages WHERE direction = 'in' AND state = 'failed'))`,
        );
        m.attachmentIds.forEach((a, position) => claim.run(id, position, a));
      }
    })();
    return this.get(id)!;
  }

  /**
   * Whether `agent` posted into its own thread after message `id` was stored (ids sort in creation order): a message
   * of its own, not a reply Leo captured nor a task's card.
   */
  postedAfter(agent: string, id: string): boolean {
    const row = this.db
      .prepare(
        `SELECT 1 FROM messages WHERE agent = ? AND id > ? AND direction = 'out' AND kind IN ('text', 'file')
           AND reply_to IS NULL AND task IS NULL LIMIT 1`,
      )
      .get(agent, id);
    return row !== undefined;
  }

  get(id: string): Message | null {
    const row = this.db.prepare('SELECT * FROM messages WHERE id = ?').get(id) as Row | undefined;
    return row ? this.toMessage(row) : null;
  }

  /** The message a sender already stored in this thread under its own id, if any. */
  byClientId(agent: string, clientId: string): Message | null {
    const row = this.db.prepare('SELECT * FROM messages WHERE agent = ? AND client_id = ?').get(agent, clientId) as
      Row | undefined;
    return row ? this.toMessage(row) : null;
  }

  /** Sets state (and optionally answer/closed_reason/delivery note) and returns the updated message. */
  update(
    id: string,
    patch: {
      state?: MessageState;
      answer?: Message['answer'];
      closed_reason?: Message['closed_reason'];
      permission?: Message['permission'];
      transcript?: string;
      note?: string;
    },
  ): Message | null {
    const sets: string[] = [];
    const args: Record<string, unknown> = { id };
    if (patch.state !== undefined) (sets.push('state = @state'), (args.state = patch.state));
    if (patch.answer !== undefined) (sets.push('answer = @answer'), (args.answer = JSON.stringify(patch.answer)));
    if (patch.closed_reason !== undefined) (sets.push('closed_reason = @cr'), (args.cr = patch.closed_reason));
    if (patch.permission !== undefined)
      (sets.push('permission = @permission'), (args.permission = JSON.stringify(patch.permission)));
    if (patch.note !== undefined) (sets.push('delivery_note = @note'), (args.note = patch.note));
    if (patch.transcript !== undefined) (sets.push('transcript = @transcript'), (args.transcript = patch.transcript));
    if (sets.length) this.db.prepare(`UPDATE messages SET ${sets.join(', ')} WHERE id = @id`).run(args);
    return this.get(id);
  }

  /**
   * A page of one thread, oldest first. `before`/`after` are message ids (exclusive); without either, the newest
   * `limit` messages.
   */
  page(agent: string, opts: { before?: string; after?: string; limit: number }): Page {
    const limit = Math.max(1, Math.min(opts.limit, 500));
    let rows: Row[];
    if (opts.after !== undefined) {
      rows = this.db
        .prepare('SELECT * FROM messages WHERE agent = ? AND id > ? ORDER BY id ASC LIMIT ?')
        .all(agent, opts.after, limit + 1) as Row[];
      const more = rows.length > limit;
      rows = rows.slice(0, limit);
      return this.pageOf(agent, rows, more ? rows.at(-1)!.id : null);
    }
    rows = (
      opts.before !== undefined
        ? this.db
            .prepare('SELECT * FROM messages WHERE agent = ? AND id < ? ORDER BY id DESC LIMIT ?')
            .all(agent, opts.before, limit)
        : this.db.prepare('SELECT * FROM messages WHERE agent = ? ORDER BY id DESC LIMIT ?').all(agent, limit)
    ) as Row[];
    rows.reverse();
    const newest = rows.at(-1)?.id;
    const hasNewer =
      newest !== undefined && this.db.prepare('SELECT 1 FROM messages WHERE agent = ? AND id > ?').get(agent, newest);
    return this.pageOf(agent, rows, hasNewer ? newest! : null);
  }

  /** Agents that have a thread, with the newest message and the unread count (agent messages after the marker). */
  threads(): { agent: string; last: Message; unread: number }[] {
    const rows = this.db
      .prepare(
        `SELECT m.* FROM messages m JOIN (SELECT agent, MAX(id) AS id FROM messages GROUP BY agent) l ON m.id = l.id`,
      )
      .all() as Row[];
    const unread = this.db.prepare(
      `SELECT COUNT(*) FROM messages WHERE agent = ? AND direction = 'out'
         AND id > COALESCE((SELECT last_read_id FROM read_markers WHERE agent = ?), '')`,
    );
    return rows.map((r) => ({
      agent: r.agent,
      last: this.toMessage(r),
      unread: unread.pluck().get(r.agent, r.agent) as number,
    }));
  }

  markRead(agent: string, upTo: string): void {
    this.db
      .prepare(
        `INSERT INTO read_markers (agent, last_read_id) VALUES (?, ?)
           ON CONFLICT (agent) DO UPDATE SET last_read_id = MAX(last_read_id, excluded.last_read_id)`,
      )
      .run(agent, upTo);
  }

  newestId(agent: string): string | null {
    return (
      (this.db.prepare('SELECT MAX(id) FROM messages WHERE agent = ?').pluck().get(agent) as string | null) ?? null
    );
  }

  /** Open asks, of one agent or of every thread. */
  openAsks(agent?: string): Message[] {
    const rows = (
      agent === undefined
        ? this.db
            .prepare(`SELECT * FROM messages WHERE ${WAITING} AND kind = 'ask' AND state = 'open' ORDER BY id`)
            .all()
        : this.db
            .prepare(
              `SELECT * FROM messages WHERE ${WAITING} AND kind = 'ask' AND state = 'open' AND +agent = ? ORDER BY id`,
            )
            .all(agent)
    ) as Row[];
    return rows.map((r) => this.toMessage(r));
  }

  /**
   * Everything waiting on the owner, newest first: open asks, permission prompts and questions cards, and prompts
   * past chat's wait whose dialog is still up in the agent's terminal (answerable there).
   */
  openCards(agent?: string): Message[] {
    const rows = this.db
      .prepare(
        `SELECT * FROM messages WHERE kind IN ('ask', 'permission')
           AND (state = 'open' OR json_extract(permission, '$.terminal_waiting') = 1)
           AND (@agent IS NULL OR agent = @agent) ORDER BY id DESC`,
      )
      .all({ agent: agent ?? null }) as Row[];
    return rows.map((r) => this.toMessage(r));
  }

  /**
   * Open permission prompts and questions cards, all or one agent's: what a PermissionRequest hook is holding (a
   * restart expires those of the last daemon first).
   */
  openPrompts(agent?: string): Message[] {
    const rows = this.db
      .prepare(
        `SELECT * FROM messages WHERE ${WAITING} AND state = 'open' AND (@agent IS NULL OR agent = @agent)
           AND (kind = 'permission' OR (kind = 'ask' AND json_extract(input, '$.type') = 'questions')) ORDER BY id`,
      )
      .all({ agent: agent ?? null }) as Row[];
    return rows.map((r) => this.toMessage(r));
  }

  /** Expired permission prompts whose agent was, when last looked at, still waiting in its terminal. */
  terminalWaitingPrompts(): Message[] {
    const rows = this.db
      .prepare(
        `SELECT * FROM messages WHERE state = 'expired' AND kind = 'permission'
           AND json_extract(permission, '$.terminal_waiting') = 1 ORDER BY id`,
      )
      .all() as Row[];
    return rows.map((r) => this.toMessage(r));
  }

  /**
   * Marks a pending message as handed to a delivery route (kept in delivery_note until the outcome replaces it), so
   * a restart can tell a message that may have been typed from one that never left the queue.
   */
  markDeliveryStarted(id: string): void {
    this.db
      .prepare(`UPDATE messages SET delivery_note = ? WHERE id = ? AND state = 'pending'`)
      .run(DELIVERY_STARTED, id);
  }

  /** Inbound messages still waiting for delivery (at start-up: left over from before a restart). */
  pendingInbound(): { message: Message; started: boolean }[] {
    const rows = this.db
      .prepare(`SELECT * FROM messages WHERE ${WAITING} AND state = 'pending' AND direction = 'in' ORDER BY id`)
      .all() as Row[];
    return rows.map((r) => ({ message: this.toMessage(r), started: r.delivery_note === DELIVERY_STARTED }));
  }

  /** Runs `fn` in one transaction: several writes that must survive a crash together or not at all. */
  atomically<T>(fn: () => T): T {
    return this.db.transaction(fn)();
  }

  private pageOf(agent: string, rows: Row[], newer: string | null): Page {
    const oldest = rows[0]?.id;
    const hasOlder =
      oldest !== undefined && this.db.prepare('SELECT 1 FROM messages WHERE agent = ? AND id < ?').get(agent, oldest);
    return { messages: rows.map((r) => this.toMessage(r)), older: hasOlder ? oldest! : null, newer };
  }

  private toMessage(r: Row): Message {
    const attachments = (
      this.db
        .prepare(
          `SELECT id, filename, mime, bytes, available FROM attachments WHERE message_id = ? ${IN_MESSAGE_ORDER}`,
        )
        .all(r.id) as (Omit<AttachmentRef, 'available'> & { available: number })[]
    ).map((a) => ({ ...a, available: a.available === 1 }));
    const m: Message = {
      id: r.id,
      agent: r.agent,
      direction: r.direction,
      kind: r.kind,
      text: r.text,
      state: r.state,
      attachments,
      ts: r.ts,
    };
    for (const k of OPTIONAL) if (r[k] !== null) (m as Record<string, unknown>)[k] = r[k];
    if (r.answer !== null) m.answer = JSON.parse(r.answer);
    if (r.input !== null) m.input = JSON.parse(r.input);
    if (r.permission !== null) m.permission = JSON.parse(r.permission);
    if (r.state === 'failed' && r.delivery_note !== null) m.failure = r.delivery_note;
    return m;
  }
}
