import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { AskService } from '../../src/chat/asks.js';
import type { ChatService } from '../../src/chat/chat-service.js';
import { ChatStore } from '../../src/chat/chat-store.js';
import { ManualClock } from '../../src/core/clock.js';
import { EventBus } from '../../src/events/bus.js';
import { openDatabase } from '../../src/store/database.js';

describe('an answer and the reply that carries it commit together', () => {
  it('when the reply cannot be recorded, the ask stays open and keeps no answer', (t) => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'leo-asks-atomic-'));
    t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
    const db = openDatabase(path.join(dir, 'chat.db'));
    t.after(() => db.close());
    const clock = new ManualClock(Date.UTC(2026, 10, 30, 9));
    const store = new ChatStore(db, clock);
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

const btn = (...labels: string[]) => labels.map((l) => ({ value: l, label: l }));
