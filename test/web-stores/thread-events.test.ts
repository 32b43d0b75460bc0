import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { merge, placeLive } from '../../src/web/stores/message-list.js';
import { eventFixture, messageFixture } from '../wire/event-fixtures.js';

const ids = (list: readonly { id: string }[]) => list.map((m) => m.id);
const A = '01JAAAAAAAAAAAAAAAAAAAAAA1';
const B = '01JAAAAAAAAAAAAAAAAAAAAAA2';
const C = '01JAAAAAAAAAAAAAAAAAAAAAA3';

describe("Leo Web's thread store over the event table's fixtures", () => {
  const window = [messageFixture({ id: A }), messageFixture({ id: B })];

  it('a chat.message joins a window at the live end, in id order', () => {
    const { message } = eventFixture('chat.message', { message: messageFixture({ id: C, text: 'new' }) });
    assert.deepEqual(ids(placeLive(window, true, 'chat.message', message)), [A, B, C]);
  });

  it('a chat.message past a window short of the live end stays out: the next page brings it', () => {
    const { message } = eventFixture('chat.message', { message: messageFixture({ id: C }) });
    assert.equal(placeLive(window, false, 'chat.message', message), window);
  });

  it('a chat.updated replaces its message in place; one older than the window stays out', () => {
    const { message } = eventFixture('chat.updated', { message: messageFixture({ id: B, text: 'edited' }) });
    const placed = placeLive(window, true, 'chat.updated', message);
    assert.deepEqual(ids(placed), [A, B]);
    assert.equal(placed[1]!.text, 'edited');
    const older = eventFixture('chat.updated', { message: messageFixture({ id: '01J0' }) }).message;
    assert.equal(placeLive(window, true, 'chat.updated', older), window);
  });

  it('a page fetched before a card was settled cannot reopen it when it lands after the settling event', () => {
    const open = messageFixture({ id: B, kind: 'permission', state: 'open' });
    const settled = eventFixture('chat.updated', { message: { ...open, state: 'answered' } }).message;
    const live = placeLive([messageFixture({ id: A }), open], true, 'chat.updated', settled);
    assert.equal(live[1]!.state, 'answered');
    const late = merge(live, [messageFixture({ id: A, text: 'newer text' }), open]);
    assert.equal(late[1]!.state, 'answered', 'the settled card stays settled');
    assert.equal(late[0]!.text, 'newer text', 'the rest of the page still applies');
  });
});
