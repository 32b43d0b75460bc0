import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Message } from '../../../src/wire/message.js';
import { isRepeatOf } from '../../../src/chat/threads/repeat-send.js';

const stored: Message = {
  id: 'm1',
  agent: 'den',
  direction: 'in',
  kind: 'text',
  text: 'hi',
  state: 'pending',
  client_id: 'c1',
  attachments: [
    { id: 'a2', filename: 'b.png', mime: 'image/png', bytes: 1, available: true },
    { id: 'a1', filename: 'a.png', mime: 'image/png', bytes: 1, available: true },
  ],
  ts: '2026-12-01T00:00:00Z',
};

describe('isRepeatOf', () => {
  it('is a repeat when text, sender, reply and attachments (in any order) match', () => {
    assert.equal(isRepeatOf(stored, { text: 'hi', attachments: ['a1', 'a2'] }), true);
  });
  it('is not when any of them differs', () => {
    assert.equal(isRepeatOf(stored, { text: 'hi!', attachments: ['a1', 'a2'] }), false);
    assert.equal(isRepeatOf(stored, { text: 'hi', attachments: ['a1'] }), false);
    assert.equal(isRepeatOf(stored, { text: 'hi', sender: 'client:dash', attachments: ['a1', 'a2'] }), false);
    assert.equal(isRepeatOf(stored, { text: 'hi', reply_to: 'm0', attachments: ['a1', 'a2'] }), false);
  });
});
