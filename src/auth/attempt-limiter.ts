import type { Clock } from '../core/clock.js';
import { LeoError } from '../core/leo-error.js';

/**
 * A token bucket of failed attempts at guessing a one-time code (device pairing, a host's join): `failures` of them
 * per `perMs`, refilled evenly. A code has 128 random bits, so this does not make guessing any less hopeless; it keeps a
 * caller from turning the public redemption routes into a load on the daemon and its logs. Per daemon, not per
 * address: behind a proxy (Tailscale Serve) every caller has the proxy's.
 */
export class AttemptLimiter {
  private left: number;
  private at: number;

  constructor(
    private readonly clock: Clock,
    private readonly limit = { failures: 10, perMs: 60_000 },
  ) {
    this.left = limit.failures;
    this.at = clock.now();
  }

  /** Throws 429 `too_many_attempts` with Retry-After while the bucket is empty. */
  check(): void {
    this.refill();
    if (this.left >= 1) return;
    const waitS = Math.ceil(((1 - this.left) * this.limit.perMs) / this.limit.failures / 1000);
    throw new LeoError(
      429,
      `too many failed attempts: try again in ${waitS} s`,
      'too_many_attempts',
      undefined,
      Math.max(1, waitS),
    );
  }

  /** Runs one attempt while the bucket allows it (else the 429 of check()); a null answer is a failure and spends one. */
  attempt<T>(run: () => T | null): T | null {
    this.check();
    const result = run();
    if (result === null) this.failed();
    return result;
  }

  /** One attempt failed: it spends one from the bucket. */
  failed(): void {
    this.refill();
    this.left = Math.max(0, this.left - 1);
  }

  private refill(): void {
    const now = this.clock.now();
    this.left = Math.min(this.limit.failures, this.left + ((now - this.at) * this.limit.failures) / this.limit.perMs);
    this.at = now;
  }
}
