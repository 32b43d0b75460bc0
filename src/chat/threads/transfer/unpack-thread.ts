import fs from 'node:fs';
import path from 'node:path';
import type { EventBus } from '../../../events/bus.js';
import type { Database } from '../../../store/database.js';
import {
  PackedAttachment,
  PackedMessage,
  PackedReadMarker,
  PackedReminder,
  THREAD_FILES,
  type ThreadManifest,
} from '../../../wire/thread-pack.js';
import type { AttachmentStore } from '../../attachments/attachments.js';
import type { ChatService } from '../chat-service.js';
import type { ChatStore } from '../chat-store.js';
import { arrivingRows, type RowOwners } from './arriving-rows.js';
import { listed, readJson, readLines, ThreadPackError, verifyFiles } from './thread-files.js';
import type { AttachmentRow } from './thread-rows.js';

export interface UnpackDeps {
  db: Database;
  store: Pick<ChatStore, 'get' | 'newestId' | 'markRead'>;
  attachments: Pick<AttachmentStore, 'pathFor'>;
  bus: EventBus;
  /** Delivers the messages that arrived still waiting for it. */
  chat: Pick<ChatService, 'deliverArrived'>;
  /** The reminder service, told when reminders arrived: one may be due before the timer it armed. */
  reminders: { rearm(): void };
}

/**
 * Takes a packed thread in as `as`'s: every file checked against the manifest first, the attachments' files copied
 * into this host's store, then every row in one transaction. A row already here is left as it is (INSERT OR IGNORE
 * on the same ids), so taking the same pack in again adds nothing, delivers nothing twice.
 */
export async function unpackThread(d: UnpackDeps, dir: string, manifest: ThreadManifest, as: string): Promise<void> {
  await verifyFiles(dir, manifest);
  const packed = {
    messages: readLines(dir, manifest, THREAD_FILES.messages, PackedMessage),
    attachments: readLines(dir, manifest, THREAD_FILES.attachments, PackedAttachment),
    reminders: readLines(dir, manifest, THREAD_FILES.reminders, PackedReminder),
    lastReadId: readJson(dir, manifest, THREAD_FILES.read, PackedReadMarker).last_read_id,
  };
  for (const a of packed.attachments)
    if (a.file !== null && !listed(manifest, a.file)) throw new ThreadPackError(a.file, 'is not in the manifest');
  const owners = rowOwners(d.db);
  const rows = arrivingRows(packed, as, owners);
  const attachments: AttachmentRow[] = [];
  const copied: string[] = [];
  let arrived: { messages: PackedMessage[]; reminders: number };
  try {
    for (const { row, file } of rows.attachments) {
      const target = d.attachments.pathFor(as, row.id, row.filename).file;
      attachments.push({ ...row, path: target });
      // A retry keeps the file the first one took in.
      if (file === null || owners.attachment(row.id) === as) continue;
      fs.mkdirSync(path.dirname(target), { recursive: true, mode: 0o700 });
      copied.push(target);
      await fs.promises.copyFile(path.join(dir, file), target);
      await fs.promises.chmod(target, 0o600);
    }
    const insert = inserter(d.db);
    arrived = d.db.transaction(() => {
      const messages = rows.messages.filter((m) => insert('messages', m));
      for (const a of attachments) insert('attachments', a);
      const reminders = rows.reminders.filter((r) => insert('reminders', r)).length;
      if (rows.lastReadId !== null) d.store.markRead(as, rows.lastReadId);
      return { messages, reminders };
    })();
  } catch (err) {
    for (const file of copied) fs.rmSync(path.dirname(file), { recursive: true, force: true });
    throw err;
  }
  announce(d, as, arrived.messages, arrived.reminders);
}

/**
 * What this host's readers and services are told: the thread list refetches on a chat.updated (a chat.message each
 * would push every old message to the owner's devices again), the reminders re-arm, and the messages the source had
 * not delivered go to the outbox.
 */
function announce(d: UnpackDeps, as: string, messages: PackedMessage[], reminders: number): void {
  const newest = messages.length ? d.store.newestId(as) : null;
  const message = newest === null ? null : d.store.get(newest);
  if (message) d.bus.publish('chat.updated', { message, change: 'state' });
  if (reminders) d.reminders.rearm();
  d.chat.deliverArrived(messages.filter((m) => m.direction === 'in' && m.state === 'pending').map((m) => m.id));
}

function rowOwners(db: Database): RowOwners {
  const ownerIn = (table: string) => {
    const q = db.prepare(`SELECT agent FROM ${table} WHERE id = ?`).pluck();
    return (id: string) => (q.get(id) as string | undefined) ?? null;
  };
  return { message: ownerIn('messages'), attachment: ownerIn('attachments'), reminder: ownerIn('reminders') };
}

/**
 * Inserts a row unless its id is taken, answering whether it went in. Columns are the row's keys, fixed by its schema;
 * each statement is prepared once (a thread can hold thousands of rows).
 */
function inserter(db: Database): (table: string, row: object) => boolean {
  const statements = new Map<string, ReturnType<Database['prepare']>>();
  return (table, row) => {
    const cols = Object.keys(row);
    const sql = `INSERT OR IGNORE INTO ${table} (${cols.join(', ')}) VALUES (${cols.map((c) => `@${c}`).join(', ')})`;
    let statement = statements.get(sql);
    if (!statement) statements.set(sql, (statement = db.prepare(sql)));
    return statement.run(row).changes === 1;
  };
}
