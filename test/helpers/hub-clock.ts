import type { ManualClock } from '../../src/core/clock.js';
import type { TestDaemon } from './daemon.js';
import { until } from './wait.js';

/**
 * Polls `probe` until it holds, moving the hub's ManualClock `stepMs` before each look: the hub's follower learns of
 * a host's change at its next read or attempt, which its clock brings that much nearer. A step shorter than an
 * attempt's 10 s deadline never lets the clock overtake an attempt under way.
 */
export function advanceHubUntil<T>(
  hub: TestDaemon,
  what: string,
  probe: () => Promise<T | undefined | false>,
  opts: { stepMs: number; timeoutMs: number; everyMs?: number },
): Promise<T> {
  return until(
    what,
    async () => {
      (hub.clock as ManualClock).advance(opts.stepMs);
      return probe();
    },
    opts.timeoutMs,
    opts.everyMs,
  );
}
