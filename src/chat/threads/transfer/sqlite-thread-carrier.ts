import fs from 'node:fs';
import path from 'node:path';
import type { EventBus } from '../../../events/bus.js';
import type { Database } from '../../../store/database.js';
import type { ThreadManifest } from '../../../wire/thread-pack.js';
import type { AskService } from '../../asks/asks.js';
import type { AttachmentStore } from '../../attachments/attachments.js';
import type { PermissionPrompts } from '../../permissions/permission-prompts.js';
import type { ReminderService } from '../../reminders/reminders.js';
import type { ChatService } from '../chat-service.js';
import type { ChatStore } from '../chat-store.js';
import type { ThreadNotes } from '../thread-notes.js';
import { packThread } from './pack-thread.js';
import type { ThreadCarrier } from './thread-carrier.js';
import { deleteThread } from './thread-rows.js';
import { unpackThread } from './unpack-thread.js';

export interface SqliteThreadCarrierDeps {
  db: Database;
  store: Pick<ChatStore, 'get' | 'newestId'>;
  attachments: Pick<AttachmentStore, 'pathFor'>;
  bus: EventBus;
  notes: Pick<ThreadNotes, 'note'>;
  chat: Pick<ChatService, 'deliverArrived'>;
  asks: Pick<AskService, 'agentGone'>;
  prompts: Pick<PermissionPrompts, 'agentGone'>;
  reminders: Pick<ReminderService, 'rearm' | 'cancelAll'>;
}

/** The note a moved agent's thread ends with on the host it left. */
export function movedNote(agent: string, address: string): string {
  return `${agent} moved to ${address}; its conversation and this thread go on there.`;
}

/** The thread's side of a move (issue 32), over chat.db and the attachment store (docs/DECISIONS.md). */
export class SqliteThreadCarrier implements ThreadCarrier {
  constructor(private readonly deps: SqliteThreadCarrierDeps) {}

  pack(agent: string, dir: string): Promise<ThreadManifest> {
    return packThread(this.deps.db, agent, dir);
  }

  unpack(dir: string, manifest: ThreadManifest, as: string): Promise<void> {
    return unpackThread(this.deps, dir, manifest, as);
  }

  async discard(as: string): Promise<void> {
    for (const file of deleteThread(this.deps.db, as)) {
      const folder = path.dirname(file);
      await fs.promises.rm(folder, { recursive: true, force: true });
      await fs.promises.rmdir(path.dirname(folder)).catch(() => {});
    }
    this.deps.reminders.rearm();
  }

  /**
   * Closes what was waiting on the owner as a stop does (prompts and cards first, releasing their hooks; then asks,
   * waking their callers), each publishing its chat.updated; cancels the reminders that went along; then notes where
   * the agent went, once.
   */
  async closeForMove(agent: string, address: string): Promise<void> {
    const { store, notes } = this.deps;
    this.deps.prompts.agentGone(agent);
    this.deps.asks.agentGone(agent);
    this.deps.reminders.cancelAll(agent);
    const text = movedNote(agent, address);
    const newest = store.newestId(agent);
    const last = newest === null ? null : store.get(newest);
    if (!(last?.kind === 'system' && last.text === text)) notes.note(agent, text);
  }
}
