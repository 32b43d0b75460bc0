// The limit on failed one-time-code redemptions (issue 31): a token bucket of ten failures a minute per daemon.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AttemptLimiter } from '../../src/auth/attempt-limiter.js';
import { ManualClock } from '../../src/core/clock.js';
import type { LeoError } from '../../src/core/leo-error.js';

const refusal = (limiter: AttemptLimiter): LeoError | null => {
  try {
    limiter.check();
    return null;
  } catch (err) {
    return err as LeoError;
  }
};

describe('AttemptLimiter', () => {
  it('admits ten failures, then answers 429 too_many_attempts with a Retry-After until one has refilled', () => {
    const clock = new ManualClock(0);
    const limiter = new AttemptLimiter(clock);
    for (let i = 0; i < 10; i++) {
      assert.equal(refusal(limiter), null, `attempt ${i + 1}`);
      limiter.failed();
    }
    const refused = refusal(limiter)!;
    assert.equal(refused.statusCode, 429);
    assert.equal(refused.code, 'too_many_attempts');
    assert.equal(refused.retryAfterS, 6);
    clock.advance(5_000);
    assert.equal(refusal(limiter)?.retryAfterS, 1);
    clock.advance(1_000);
    assert.equal(refusal(limiter), null, 'one attempt refilled after six seconds');
  });

  it('refills evenly up to the full bucket, never beyond it', () => {
    const clock = new ManualClock(0);
    const limiter = new AttemptLimiter(clock, { failures: 2, perMs: 1_000 });
    clock.advance(60_000);
    limiter.failed();
    limiter.failed();
    assert.equal(refusal(limiter)?.statusCode, 429, 'an idle hour does not bank more than the bucket holds');
    clock.advance(500);
    assert.equal(refusal(limiter), null);
  });

  it('attempt() runs while the bucket allows, and counts a null answer as a failure', () => {
    const limiter = new AttemptLimiter(new ManualClock(0), { failures: 2, perMs: 60_000 });
    assert.equal(
      limiter.attempt(() => 'token'),
      'token',
    );
    assert.equal(
      limiter.attempt(() => null),
      null,
    );
    assert.equal(
      limiter.attempt(() => null),
      null,
    );
    let ran = false;
    assert.throws(
      () =>
        limiter.attempt(() => {
          ran = true;
          return 'token';
        }),
      /too many failed attempts/,
    );
    assert.equal(ran, false, 'a refused attempt does not run');
  });

  it('successes cost nothing: only failed() spends', () => {
    const limiter = new AttemptLimiter(new ManualClock(0), { failures: 1, perMs: 60_000 });
    for (let i = 0; i < 100; i++) assert.equal(refusal(limiter), null);
  });
});
