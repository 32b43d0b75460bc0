import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ManualClock } from '../../src/core/clock.js';
import { EventBus } from '../../src/events/bus.js';
import { MessagePushes } from '../../src/push/message-pushes.js';
import type { PushRecord } from '../../src/push/push-payload.js';
import { messageFixture } from '../wire/event-fixtures.js';

describe('pushes on a hub', () => {
  const setUp = (enabled = true) => {
    const bus = new EventBus(new ManualClock(0));
    const sent: PushRecord[] = [];
    new MessagePushes({ dispatch: (r) => sent.push(r), idle: async () => {} }).follow(bus, () => enabled);
    return { bus, sent };
  };

  it('a followed host’s new message is pushed once, named agent@host, deep-linking to its id', () => {
    const { bus, sent } = setUp();
    const message = messageFixture({ agent: 'den@box', kind: 'ask', text: 'Ship it?' });
    bus.publish('chat.message', { message, host: 'box' });
    assert.equal(sent.length, 1);
    assert.equal(sent[0]!.agent, 'den@box');
    assert.equal(sent[0]!.message_id, message.id);
    assert.equal(sent[0]!.body, 'Ship it?');
  });

  it('this daemon’s own messages are not pushed from the stream (they are where they are stored)', () => {
    const { bus, sent } = setUp();
    bus.publish('chat.message', { message: messageFixture() });
    bus.publish('chat.updated', { message: messageFixture({ agent: 'den@box' }), change: 'state', host: 'box' });
    assert.deepEqual(sent, []);
  });

  it('nothing is pushed while chat is off', () => {
    const { bus, sent } = setUp(false);
    bus.publish('chat.message', { message: messageFixture({ agent: 'den@box' }), host: 'box' });
    assert.deepEqual(sent, []);
  });
});
