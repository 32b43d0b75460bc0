import type { TaskRun } from '../wire/fleet.js';

/** The spec's MaxRecentRuns: how many runs recent_runs (and the run log) hold. */
export const MAX_RECENT_RUNS = 50;

/** A start time that does not parse sorts as the oldest rather than poisoning the order. */
export function startedMs(run: TaskRun): number {
  const ms = Date.parse(run.started_at);
  return Number.isNaN(ms) ? -Infinity : ms;
}

/**
 * recent_runs: the run log (the only source that knows running firings, with the producer's own timing) merged with
 * durable history, newest first by started_at, one entry per id with the run log's winning, capped. Equal start
 * times keep their input order, log before history.
 */
export function mergeRecentRuns(log: TaskRun[], history: TaskRun[], cap = MAX_RECENT_RUNS): TaskRun[] {
  const seen = new Set(log.map((r) => r.id));
  const merged = [...log, ...history.filter((r) => !seen.has(r.id))];
  return merged.sort((a, b) => startedMs(b) - startedMs(a)).slice(0, Math.max(0, cap));
}
