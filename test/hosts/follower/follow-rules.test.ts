import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { backoffMs, helloResumes, isGap, MAX_BACKOFF_MS, statusOf } from '../../../src/hosts/follower/follow-rules.js';

describe('following a host: the rules', () => {
  it('a connected host is online until two heartbeat intervals pass in silence, offline when unreachable', () => {
    assert.equal(statusOf(true, 1_000 + 39_999, 1_000, 20_000), 'online');
    assert.equal(statusOf(true, 1_000 + 40_000, 1_000, 20_000), 'stale');
    assert.equal(statusOf(false, 1_000, 1_000, 20_000), 'offline');
  });

  it('retries double from 1 s and stop growing at 60 s', () => {
    assert.deepEqual(
      [1, 2, 3, 4, 5, 6, 7, 8].map(backoffMs),
      [1_000, 2_000, 4_000, 8_000, 16_000, 32_000, 60_000, 60_000],
    );
    assert.equal(backoffMs(1_000), MAX_BACKOFF_MS);
  });

  it('a hello resumes only on the same boot with nothing published since the last seq read', () => {
    assert.equal(helloResumes({ bootId: 'a', seq: 7 }, { bootId: 'a', seq: 7 }), true);
    assert.equal(helloResumes({ bootId: 'a', seq: 7 }, { bootId: 'a', seq: 9 }), false, 'events were missed');
    assert.equal(helloResumes({ bootId: 'a', seq: 7 }, { bootId: 'b', seq: 7 }), false, 'the host restarted');
    assert.equal(helloResumes(null, { bootId: 'a', seq: 0 }), false, 'nothing held yet');
  });

  it('an event that is not the next seq is a gap', () => {
    assert.equal(isGap(4, 5), false);
    assert.equal(isGap(4, 6), true);
    assert.equal(isGap(4, 4), true);
  });
});
