import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import type { Socket } from 'node:net';
import { describe, it } from 'node:test';
import type { Principal } from '../../src/wire/token-kinds.js';
import { ConnectionCap, connectionCeiling } from '../../src/http/connection-cap.js';
import {
  evictForNewcomer,
  holderOf,
  makeRoomForToken,
  perTokenLimit,
  type ConnectionHolder,
} from '../../src/http/connection-choice.js';
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

const operatorToken: Principal = { kind: 'operator' };
const dashboardToken: Principal = { kind: 'client', id: 'c1', name: 'dashboard', canPost: false };
const operator = holderOf(operatorToken);
const dashboard = holderOf(dashboardToken);
const other = holderOf({ kind: 'client', id: 'c2', name: 'other', canPost: false });

describe('ConnectionCap', () => {
  it('at the cap pushes out the oldest connection without a token, then idle ones; refuses when all are busy', () => {
    const cap = new ConnectionCap(() => ({ max: 3, perToken: 8 }));
    const [a, b, c, d, e, f] = Array.from({ length: 6 }, fakeSocket);
    for (const s of [a!, b!, c!]) assert.equal(cap.admit(s), true);
    assert.equal(cap.begin(a!, operator), true);
    assert.equal(cap.admit(d!), true);
    assert.deepEqual(
      [a, b, c].map((s) => s!.destroyedByCap),
      [false, true, false],
      'b, the oldest without a token, went',
    );
    assert.equal(cap.begin(c!, dashboard), true);
    assert.equal(cap.begin(d!, other), true);
    assert.equal(cap.admit(e!), false, 'every open connection is busy: the newcomer is refused');
    assert.deepEqual(cap.readout(), {
      open: 3,
      unproven: 0,
      max: 3,
      maxPerToken: 1,
      evicted: 1,
      refused: 1,
      refusedForToken: 0,
    });
    cap.finished(a!);
    cap.finished(d!);
    assert.equal(cap.admit(f!), true, 'idle keep-alive connections make room');
    assert.equal(d!.destroyedByCap, true, "the other client's idle connection went before the operator's older one");
    assert.equal(a!.destroyedByCap, false);
  });

  it('holds a token to its share: its own longest-idle connection goes, or its request is refused', () => {
    const cap = new ConnectionCap(() => ({ max: 16, perToken: 2 }));
    const [a, b, c, d] = Array.from({ length: 4 }, fakeSocket);
    for (const s of [a!, b!, c!, d!]) cap.admit(s);
    assert.equal(cap.begin(a!, dashboard), true);
    assert.equal(cap.begin(b!, dashboard), true);
    assert.equal(cap.begin(c!, dashboard), false, 'both its connections are busy');
    assert.equal(cap.begin(c!, operator), true, 'another token is not held to the dashboard share');
    cap.finished(b!);
    cap.finished(a!);
    assert.equal(cap.begin(d!, dashboard), true);
    assert.equal(b!.destroyedByCap, true, 'b went idle first');
    assert.equal(a!.destroyedByCap, false);
    assert.equal(cap.readout().refusedForToken, 1);
  });
});

describe('connection choice', () => {
  const view = (since: number, holder: ConnectionHolder | null, inFlight = 0) => ({ since, holder, inFlight });
  const client = dashboard!;
  const owner = operator!;
  const phone = holderOf({ kind: 'device', id: 'p1', name: 'phone', fleet: false })!;

  it('ranks the agents and clients below the operator and devices', () => {
    assert.deepEqual(
      [dashboardToken, operatorToken, { kind: 'agent' }, { kind: 'device', id: 'p1', name: 'phone', fleet: false }].map(
        (p) => holderOf(p as Principal)!.tier,
      ),
      ['client', 'owner', 'client', 'owner'],
    );
    assert.equal(holderOf({ kind: 'anonymous' }), null);
    assert.equal(holderOf({ kind: 'socket' }), null);
  });

  it('a newcomer pushes out: no token first, then the longest-idle client, then the longest-idle owner', () => {
    const noToken = view(9, null, 1);
    const oldOwner = view(1, owner);
    const idleClient = view(5, client);
    const busyClient = view(0, client, 1);
    assert.equal(evictForNewcomer([oldOwner, idleClient, busyClient, noToken]), noToken);
    assert.equal(evictForNewcomer([oldOwner, idleClient, busyClient]), idleClient);
    assert.equal(evictForNewcomer([view(3, phone), oldOwner, busyClient]), oldOwner);
    assert.equal(evictForNewcomer([busyClient, view(0, owner, 2)]), null);
  });

  it("a token beyond its share gives up its own longest-idle connection, never another's", () => {
    const self = view(10, null);
    const mine = [view(4, client), view(2, client), view(1, client, 1)];
    const others = [view(0, owner)];
    assert.deepEqual(makeRoomForToken([...mine, ...others, self], client.key, 4, self), { fits: true });
    assert.deepEqual(makeRoomForToken([...mine, ...others, self], client.key, 3, self), {
      fits: false,
      evict: mine[1],
    });
    assert.deepEqual(makeRoomForToken([view(1, client, 1), self], client.key, 1, self), {
      fits: false,
      refuse: true,
    });
  });

  it('holds one token to at most half the cap', () => {
    assert.equal(perTokenLimit(64, 512), 64);
    assert.equal(perTokenLimit(64, 44), 22);
    assert.equal(perTokenLimit(8, 16), 8);
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
