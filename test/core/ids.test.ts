import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { decodeTime } from 'ulid';
import { newId } from '../../src/core/ids.js';

const CROCKFORD = /^[0-9A-HJKMNP-TV-Z]{26}$/;

describe('newId', () => {
  it('sorts in creation order, within one millisecond and across them', () => {
    const t = Date.parse('2026-12-06T05:00:00Z');
    const ids = [newId(t), newId(t), newId(t), newId(t + 1), newId(t + 1), newId(t + 2)];
    assert.deepEqual([...ids].sort(), ids);
    assert.equal(new Set(ids).size, ids.length);
    assert.deepEqual(ids.map(decodeTime), [t, t, t, t + 1, t + 1, t + 2]);
  });

  it('draws its random part afresh each millisecond, across many refills of its pool, over the whole alphabet', () => {
    const t = Date.parse('2026-12-06T05:00:00Z');
    // 16 bytes an id: 2 000 ids go through the 4 KB pool about eight times.
    const tails = Array.from({ length: 2_000 }, (_, i) => newId(t + 10 + i * 1_000)).map((id) => {
      assert.match(id, CROCKFORD);
      return id.slice(10);
    });
    assert.equal(new Set(tails).size, tails.length, 'no random part twice');
    const seen = new Set(tails.join(''));
    assert.equal(seen.size, 32, `every character of the alphabet drawn: ${[...seen].sort().join('')}`);
  });
});
