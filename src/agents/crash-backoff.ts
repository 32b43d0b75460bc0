/**
 * Delay before restarting an agent whose process exited on its own: 1 s, 2 s, 4 s … capped at 60 s. A run that
 * stayed up for `stableMs` resets the count, so an agent that crashes once a day is restarted at once each time.
 */
export const BACKOFF_BASE_MS = 1_000;
export const BACKOFF_MAX_MS = 60_000;
export const STABLE_RUN_MS = 60_000;

export function crashDelay(consecutiveCrashes: number): number {
  const n = Math.max(1, consecutiveCrashes);
  return Math.min(BACKOFF_MAX_MS, BACKOFF_BASE_MS * 2 ** (n - 1));
}

export function nextConsecutive(previous: number, ranForMs: number): number {
  return ranForMs >= STABLE_RUN_MS ? 1 : previous + 1;
}

/**
 * Consecutive quick exits after which the agent is stopped with the reason instead of restarted again: a harness
 * that exits at every start (a bad flag, a missing conversation, a broken install) would otherwise loop silently
 * forever while every message sent to it is lost. Five tries span about 15 s of backoff.
 */
export const MAX_CONSECUTIVE_CRASHES = 5;
