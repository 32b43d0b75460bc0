import { rfc3339 } from '../../src/core/time.js';
import type { TaskRun } from '../../src/wire/fleet.js';

export const T0 = Date.UTC(2026, 9, 15, 18);
export const MIN = 60_000;

/** A finished run of daily-news started `startMin` minutes after T0, with any field overridden. */
export function taskRun(id: string, startMin = 0, over: Partial<TaskRun> = {}): TaskRun {
  return {
    id,
    task: 'daily-news',
    status: 'succeeded',
    started_at: rfc3339(T0 + startMin * MIN),
    ended_at: rfc3339(T0 + (startMin + 1) * MIN),
    duration_ms: MIN,
    error: null,
    workspace: '/w/news',
    model: 'opus',
    harness: 'claude',
    ...over,
  };
}
