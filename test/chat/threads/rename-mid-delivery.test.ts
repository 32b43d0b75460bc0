// An agent renamed while one of its messages is being typed (the rename moves the thread's rows, then the typing
// fails on the old tmux session): the failure's note goes into the thread under the new name, so the thread stays
// one thread. Found by agents/rename-activity-live in CI, where the note under the old name split the thread.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { ChatService, type ChatServiceDeps } from '../../../src/chat/threads/chat-service.js';
import { ChatStore } from '../../../src/chat/threads/chat-store.js';
import { PendingLimit } from '../../../src/chat/threads/pending-limit.js';
import { ThreadNotes } from '../../../src/chat/threads/thread-notes.js';
import { ManualClock } from '../../../src/core/clock.js';
import { createLogger } from '../../../src/core/logger.js';
import { Deliverer } from '../../../src/delivery/deliverer.js';
import { EventBus } from '../../../src/events/bus.js';
import { moveAgentRows } from '../../../src/store/agent-rows.js';
import { openDatabase } from '../../../src/store/database.js';

describe('an agent renamed while its message is being typed', () => {
  it('the failure and its note land in the renamed thread, and no thread is left under the old name', async (t) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'leo-rename-mid-'));
    const db = openDatabase(path.join(dir, 'chat.db'));
    t.after(() => {
      db.close();
      fs.rmSync(dir, { recursive: true, force: true });
    });
    const clock = new ManualClock(Date.parse('2026-12-01T10:00:00Z'));
    const store = new ChatStore(db, clock);
    const bus = new EventBus(clock);
    const chat = new ChatService({
      store,
      notes: new ThreadNotes(store, bus),
      bus,
      clock,
      deliverer: new Deliverer([
        {
          name: 'tmux',
          available: () => true,
          deliver: async () => {
            // The rename commits while the text is on its way: the rows move, the old session is gone.
            db.transaction(() => moveAgentRows(db, 'den', 'lair'))();
            throw new Error("tmux: can't find session: leo-den");
          },
        },
      ]),
      agents: {
        isRunning: () => true,
        staysDown: () => false,
        start: async () => undefined,
        movedError: () => null,
        sendError: () => null,
        unheld: async () => true,
      },
      attachments: { pathsOf: () => [] },
      pending: new PendingLimit(() => 1000),
      logger: createLogger('silent'),
    } as unknown as ChatServiceDeps);

    const sent = chat.send('den', { text: 'hello den' });
    await chat.drain();

    const agents = db.prepare('SELECT DISTINCT agent FROM messages').all() as { agent: string }[];
    assert.deepEqual(
      agents.map((r) => r.agent),
      ['lair'],
      'every row of the thread, the note included, is under the new name',
    );
    const failed = store.get(sent.id);
    assert.equal(failed?.state, 'failed');
    assert.equal(failed?.agent, 'lair');
  });
});
