import fs from 'node:fs';
import path from 'node:path';
import type { ThreadManifest } from '../../../wire/thread-pack.js';
import type { ThreadNotes } from '../thread-notes.js';
import { packThread } from './pack-thread.js';
import type { ThreadCarrier } from './thread-carrier.js';
import { deleteThread } from './thread-rows.js';
import { unpackThread, type UnpackDeps } from './unpack-thread.js';

export interface SqliteThreadCarrierDeps extends UnpackDeps {
  notes: Pick<ThreadNotes, 'note'>;
  // The services built over the threads (asks, prompts, reminders), by what the carrier calls of them.
  asks: { agentGone(agent: string): void };
  prompts: { agentGone(agent: string): void };
  reminders: { rearm(): void; cancelAll(agent: string): void };
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
    // Each file has a folder of its own, in the agent's folder, which goes too once empty.
    const folders = new Set(deleteThread(this.deps.db, as).map((file) => path.dirname(file)));
    for (const folder of folders) await fs.promises.rm(folder, { recursive: true, force: true });
    for (const agentFolder of new Set([...folders].map((f) => path.dirname(f))))
      await fs.promises.rmdir(agentFolder).catch(() => {});
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
