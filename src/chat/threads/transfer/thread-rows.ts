import type { Database } from '../../../store/database.js';
import type { PackedAttachment, PackedMessage, PackedReminder } from '../../../wire/thread-pack.js';

/** An attachments row as chat.db holds it: the packed shape with its file's path on this host. */
export type AttachmentRow = Omit<PackedAttachment, 'file'> & { path: string };

/** Everything of one agent's thread in chat.db: what a move ships and what a discard removes. */
export interface ThreadRows {
  messages: PackedMessage[];
  attachments: AttachmentRow[];
  /** The scheduled ones: a fired or cancelled reminder has nothing left to do. */
  reminders: PackedReminder[];
  lastReadId: string | null;
}

/** The attachments of the thread's messages, whichever agent folder their rows name. */
const ATTACHMENTS_OF = `FROM attachments WHERE message_id IN (SELECT id FROM messages WHERE agent = @agent)`;

/** Reads `agent`'s thread in one transaction, so the rows agree with one another (no message without its files). */
export function readThread(db: Database, agent: string): ThreadRows {
  return db.transaction(() => ({
    messages: db.prepare('SELECT * FROM messages WHERE agent = @agent ORDER BY id').all({ agent }) as PackedMessage[],
    attachments: db
      .prepare(
        `SELECT id, message_id, agent, filename, mime, bytes, available, created_at, position, path ${ATTACHMENTS_OF}
           ORDER BY id`,
      )
      .all({ agent }) as AttachmentRow[],
    reminders: db
      .prepare(
        `SELECT id, agent, text, at, at_ms, task, run_id, created_at FROM reminders
           WHERE agent = @agent AND state = 'scheduled' ORDER BY id`,
      )
      .all({ agent }) as PackedReminder[],
    lastReadId:
      (db.prepare('SELECT last_read_id FROM read_markers WHERE agent = @agent').pluck().get({ agent }) as
        string | undefined) ?? null,
  }))();
}

/**
 * Removes `agent`'s thread from chat.db in one transaction (its attachments' rows before the messages they name) and
 * answers the files its attachments' rows named, for the caller to remove once that committed.
 */
export function deleteThread(db: Database, agent: string): string[] {
  return db.transaction(() => {
    const files = db.prepare(`SELECT path ${ATTACHMENTS_OF} OR agent = @agent`).pluck().all({ agent }) as string[];
    db.prepare(`DELETE ${ATTACHMENTS_OF} OR agent = @agent`).run({ agent });
    db.prepare('DELETE FROM messages WHERE agent = @agent').run({ agent });
    db.prepare('DELETE FROM read_markers WHERE agent = @agent').run({ agent });
    db.prepare('DELETE FROM reminders WHERE agent = @agent').run({ agent });
    return files;
  })();
}
