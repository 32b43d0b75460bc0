import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it, type TestContext } from 'node:test';
import { AskService } from '../../../src/chat/asks/asks.js';
import { ChatService, type ChatServiceDeps } from '../../../src/chat/threads/chat-service.js';
import { ChatStore } from '../../../src/chat/threads/chat-store.js';
import { ManualClock } from '../../../src/core/clock.js';
import type { Deliverer } from '../../../src/delivery/deliverer.js';
import { createLogger } from '../../../src/core/logger.js';
import { EventBus } from '../../../src/events/bus.js';
import { openDatabase } from '../../../src/store/database.js';
import { PendingLimit } from '../../../src/chat/threads/pending-limit.js';

function tempStore(t: TestContext) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'leo-asks-atomic-'));
  const db = openDatabase(path.join(dir, 'chat.db'));
  t.after(() => {
    db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  const clock = new ManualClock(Date.UTC(2026, 10, 30, 9));
  return { store: new ChatStore(db, clock), clock, db };
}

describe('an answer and the reply that carries it commit together', () => {
  it('when the reply cannot be recorded, the ask stays open and keeps no answer', (t) => {
    const { store, clock } = tempStore(t);
    let replies = 0;
    const chat = {
      send(agent: string, m: { text: string; reply_to?: string }) {
        replies++;
        // What a reply does first: it is stored, inside whatever transaction is open.
        store.insert({ agent, direction: 'in', kind: 'text', text: m.text, state: 'pending' });
        if (replies === 1) throw new Error('disk full');
        return store.get(m.reply_to!)!;
      },
    } as unknown as ChatService;
    const asks = new AskService({ store, bus: new EventBus(clock), clock, chat });
    const ask = asks.open({ agent: 'den' }, 'Ship it?', { type: 'buttons', options: btn('Yes', 'No') }, null);

    assert.throws(() => asks.answer('den', ask.id, { values: ['Yes'] }), /disk full/);
    assert.equal(store.get(ask.id)?.state, 'open');
    assert.equal(store.get(ask.id)?.answer, undefined);
    assert.deepEqual(
      store.page('den', { limit: 50 }).messages.map((m) => m.kind),
      ['ask'],
      'the half-made reply is gone too',
    );

    const answered = asks.answer('den', ask.id, { values: ['Yes'] });
    assert.equal(answered.state, 'answered');
    assert.deepEqual(
      store.page('den', { limit: 50 }).messages.map((m) => [m.kind, m.state]),
      [
        ['ask', 'answered'],
        ['text', 'pending'],
      ],
    );
  });
});

describe('a send made inside a transaction', () => {
  it('reaches the agent only after the transaction has committed', async (t) => {
    const { store, clock, db } = tempStore(t);
    const typed: { text: string; inTransaction: boolean }[] = [];
    const deliverer = {
      async deliver(_agent: string, text: string) {
        typed.push({ text, inTransaction: db.inTransaction });
        return 'tmux';
      },
    } as unknown as Deliverer;
    const chat = new ChatService({
      store,
      bus: new EventBus(clock),
      deliverer,
      agents: { isRunning: () => true, movedError: () => null, sendError: () => null, unheld: async () => true },
      attachments: { pathsOf: () => [] },
      pending: new PendingLimit(() => 1000),
      logger: createLogger('silent'),
    } as unknown as ChatServiceDeps);
    store.atomically(() => {
      chat.send('den', { text: 'the answer' });
      assert.deepEqual(typed, [], 'nothing typed while the transaction is open');
    });
    await chat.drain();
    assert.deepEqual(typed, [{ text: '[Leo Chat] the answer', inTransaction: false }]);
  });
});

const btn = (...labels: string[]) => labels.map((l) => ({ value: l, label: l }));
