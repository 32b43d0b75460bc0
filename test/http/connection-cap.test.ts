import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import type { Socket } from 'node:net';
import { describe, it } from 'node:test';
import { ConnectionCap, connectionCeiling } from '../../src/http/connection-cap.js';
import { openFileLimit } from '../../src/core/open-file-limit.js';

/** Enough of a socket for the cap: it is destroyed, and says when it closes. */
function fakeSocket(): Socket & { destroyedByCap: boolean } {
  const s = new EventEmitter() as Socket & { destroyedByCap: boolean };
  s.destroyedByCap = false;
  s.destroy = () => {
    s.destroyedByCap = true;
    s.emit('close');
    return s;
  };
  return s;
}

describe('ConnectionCap', () => {
  it('at the cap pushes out the oldest unproven connection, never a proven one, and refuses when all are proven', () => {
    const cap = new ConnectionCap(() => 3);
    const [a, b, c, d, e, f] = Array.from({ length: 6 }, fakeSocket);
    for (const s of [a!, b!, c!]) assert.equal(cap.admit(s), true);
    cap.prove(a!);
    assert.equal(cap.admit(d!), true);
    assert.deepEqual(
      [a, b, c].map((s) => s!.destroyedByCap),
      [false, true, false],
      'b, the oldest unproven, went',
    );
    cap.prove(c!);
    cap.prove(d!);
    assert.equal(cap.admit(e!), false, 'every open connection is proven: the newcomer is refused');
    assert.deepEqual(cap.readout(), { open: 3, unproven: 0, max: 3, evicted: 1, refused: 1 });
    a!.emit('close');
    assert.equal(cap.admit(f!), true, 'a closed connection gives its place back');
  });

  it('keeps room under the open-file limit', () => {
    assert.equal(connectionCeiling(512, null), 512);
    assert.equal(connectionCeiling(512, 20_000), 512);
    assert.equal(connectionCeiling(512, 600), 344);
    assert.equal(connectionCeiling(512, 100), 16);
  });
});

describe('openFileLimit', () => {
  it('reads the soft and hard limits from /proc/self/limits', () => {
    const text =
      'Limit                     Soft Limit           Hard Limit           Units\nMax open files            1024                 4096                 files\n';
    assert.deepEqual(
      openFileLimit(() => text),
      { soft: 1024, hard: 4096 },
    );
    assert.equal(
      openFileLimit(() => {
        throw new Error('ENOENT');
      }),
      null,
    );
  });
});
