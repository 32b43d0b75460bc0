// A ChatService over a real store and a fake deliverer that records what it types and what it asks of the agents.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestContext } from 'node:test';
import { ChatService, type ChatServiceDeps } from '../../src/chat/threads/chat-service.js';
import { ChatStore } from '../../src/chat/threads/chat-store.js';
import { PendingLimit } from '../../src/chat/threads/pending-limit.js';
import { ThreadNotes } from '../../src/chat/threads/thread-notes.js';
import { ManualClock } from '../../src/core/clock.js';
import { createLogger } from '../../src/core/logger.js';
import { Deliverer } from '../../src/delivery/deliverer.js';
import { EventBus } from '../../src/events/bus.js';
import { openDatabase, type Database } from '../../src/store/database.js';

/**
 * `typingMs`: how long each delivery takes, in real ms (0: at once). `deliver`: what typing does instead of recording
 * the text (it may throw, as a failed delivery does).
 */
export function fakeChat(
  t: TestContext,
  { typingMs = 0, deliver }: { typingMs?: number; deliver?: (db: Database) => Promise<void> } = {},
) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'leo-chat-'));
  const db = openDatabase(path.join(dir, 'chat.db'));
  t.after(() => {
    db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  const clock = new ManualClock(Date.parse('2026-12-01T10:00:00Z'));
  const store = new ChatStore(db, clock);
  const bus = new EventBus(clock);
  const typed: string[] = [];
  const asked: string[] = [];
  const chat = new ChatService({
    store,
    notes: new ThreadNotes(store, bus),
    bus,
    clock,
    deliverer: new Deliverer([
      {
        name: 'tmux',
        available: () => true,
        deliver: async (_agent, text) => {
          if (typingMs) await new Promise((r) => setTimeout(r, typingMs));
          await deliver?.(db);
          typed.push(text);
        },
      },
    ]),
    agents: {
      isRunning: (a: string) => (asked.push(`isRunning ${a}`), true),
      start: async (a: string) => void asked.push(`start ${a}`),
      movedError: () => null,
      sendError: () => null,
      unheld: async () => true,
    },
    attachments: { pathsOf: () => [] },
    pending: new PendingLimit(() => 1000),
    logger: createLogger('silent'),
  } as unknown as ChatServiceDeps);
  const pending = (text: string) =>
    store.insert({ agent: 'den', direction: 'in', kind: 'text', text, state: 'pending' });
  return { db, store, clock, chat, typed, asked, pending };
}
