// A hub's lists across machines (issue 31), pure: each host's items renamed as the relay names them, in the order the
// single-daemon route gives.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { mergeOpen, mergeThreads } from '../../../src/hosts/lists/merge-lists.js';
import type { Thread } from '../../../src/wire/message.js';
import { messageFixture } from '../../wire/event-fixtures.js';

const card = (id: string, agent: string) => messageFixture({ id, agent, kind: 'ask', state: 'open' });
const thread = (agent: string, last: string | null, pinned = false): Thread => ({
  agent,
  last_message: last === null ? null : messageFixture({ id: last, agent }),
  unread: 1,
  pinned,
});

describe('the hub’s lists across machines', () => {
  it('the inbox: every machine’s open cards, renamed, newest first across machines', () => {
    const merged = mergeOpen(
      [card('01J3', 'assistant'), card('01J1', 'assistant')],
      [
        { host: 'box', items: [card('01J4', 'den'), card('01J2', 'den')] },
        { host: 'vm', items: [] },
      ],
    );
    assert.deepEqual(
      merged.map((m) => `${m.id} ${m.agent}`),
      ['01J4 den@box', '01J3 assistant', '01J2 den@box', '01J1 assistant'],
    );
  });

  it('the thread list: only the hub’s assistant pinned, then the newest conversation wherever it is', () => {
    const merged = mergeThreads(
      [thread('assistant', '01J1', true), thread('owl', null)],
      [{ host: 'box', items: [thread('assistant', '01J5', true), thread('den', '01J3'), thread('cat', null)] }],
    );
    assert.deepEqual(
      merged.map((t) => [t.agent, t.pinned, t.last_message?.agent ?? null]),
      [
        ['assistant', true, 'assistant'],
        ['assistant@box', false, 'assistant@box'],
        ['den@box', false, 'den@box'],
        ['cat@box', false, null],
        ['owl', false, null],
      ],
    );
  });
});
