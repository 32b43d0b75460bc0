import type { Clock } from '../core/clock.js';
import type { CheckResult } from '../wire/check-result.js';

/** How long one round of the daemon's own checks answers for: each round starts a few programs. */
export const CHECKS_FRESH_MS = 30_000;

/**
 * The doctor's checks as the daemon judges them (its PATH, its environment), for GET /api/v1/daemon: one round at a
 * time, shared by every caller, and reused while fresh, so a burst of status calls starts no burst of programs.
 */
export class DaemonChecks {
  private round: { at: number; results: Promise<CheckResult[]> } | null = null;

  constructor(private readonly deps: { clock: Clock; run(): Promise<CheckResult[]> }) {}

  latest(): Promise<CheckResult[]> {
    const now = this.deps.clock.now();
    if (!this.round || now - this.round.at >= CHECKS_FRESH_MS) {
      const results = this.deps.run();
      const round = { at: now, results };
      this.round = round;
      // A failed round is not kept: the next caller tries again.
      results.catch(() => {
        if (this.round === round) this.round = null;
      });
    }
    return this.round.results;
  }
}
