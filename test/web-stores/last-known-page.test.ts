import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { overLastKnown } from '../../src/web/stores/message-list.js';
import { messageFixture } from '../wire/event-fixtures.js';

const ids = (list: readonly { id: string }[]) => list.map((m) => m.id);
const id = (n: number) => `01JAAAAAAAAAAAAAAAAAAAAA${String(n).padStart(2, '0')}`;
const page = (...ns: number[]) => ns.map((n) => messageFixture({ id: id(n), text: `daemon ${n}` }));

describe("Leo Web: the daemon's page over a thread's last known page", () => {
  const kept = [1, 2, 3, 4].map((n) => messageFixture({ id: id(n), text: `kept ${n}` }));

  it('a page that reaches back into it replaces what it holds and drops what is older', () => {
    const shown = overLastKnown(kept, page(3, 4, 5, 6));
    assert.deepEqual(ids(shown), [id(3), id(4), id(5), id(6)]);
    assert.deepEqual(
      shown.map((m) => m.text),
      ['daemon 3', 'daemon 4', 'daemon 5', 'daemon 6'],
    );
  });

  it('a page that does not reach back replaces it whole: no gap shown as one thread', () => {
    assert.deepEqual(ids(overLastKnown(kept, page(8, 9))), [id(8), id(9)]);
  });

  it('a live message newer than the page, come while it loaded, stays', () => {
    const live = messageFixture({ id: id(10), text: 'live' });
    assert.deepEqual(ids(overLastKnown([...kept, live], page(8, 9))), [id(8), id(9), id(10)]);
  });

  it('an empty thread leaves nothing of the last known page', () => {
    assert.deepEqual(overLastKnown(kept, []), []);
  });
});
