import { Cron } from 'croner';
import type { Config } from '../config/schema.js';
import { rfc3339 } from '../core/time.js';
import type { Task } from '../wire/fleet.js';
import { taskValues, type RunValues } from './task-launch.js';

/** The local time zone name, what a task without `timezone` is scheduled in. */
export const localZone = (): string => (zone ??= Intl.DateTimeFormat().resolvedOptions().timeZone);
/** Read once: building an Intl.DateTimeFormat is costly, and the daemon's zone does not change under it. */
let zone: string | undefined;

/**
 * Parsed schedules, by pattern and zone: building a Cron (and its time-zone lookup) per task per /state request was
 * most of the snapshot's cost with a handful of tasks (profiled: ~3 ms for 5 tasks).
 */
const schedules = new Map<string, Cron | null>();
const SCHEDULES_MAX = 1024;

function parsed(schedule: string, timezone: string): Cron | null {
  const key = `${timezone}\u0000${schedule}`;
  let cron = schedules.get(key);
  if (cron === undefined) {
    try {
      cron = new Cron(schedule, { timezone, paused: true });
    } catch {
      cron = null;
    }
    if (schedules.size >= SCHEDULES_MAX) schedules.clear();
    schedules.set(key, cron);
  }
  return cron;
}

/** Next firing strictly after `now`, or null for a disabled task or a schedule that never fires again. */
export function nextRunAt(schedule: string, timezone: string, now: number): number | null {
  const next = parsed(schedule, timezone)?.nextRun(new Date(now));
  return next ? next.getTime() : null;
}

/**
 * Config-level description of every task for /api/v1/state, with the values its next firing runs with (taskValues:
 * the cascade a run resolves, so a task without `workspace:` shows the default workspace it runs in, or a persistent
 * task's agent's own). Only a persistent task names a template (observability-api.md, Task).
 */
export function taskViews(
  config: Config,
  home: string,
  now: number,
  lastRunAt: (task: string) => number | null,
  agentValues: (agent: string) => RunValues | undefined,
): Task[] {
  return Object.keys(config.tasks)
    .sort()
    .map((name) => {
      const t = config.tasks[name]!;
      const v = taskValues(config, name, home, agentValues);
      const timezone = t.timezone ?? localZone();
      const last = lastRunAt(name);
      const next = t.enabled ? nextRunAt(t.schedule, timezone, now) : null;
      return {
        name,
        schedule: t.schedule,
        timezone,
        enabled: t.enabled,
        runtime: t.runtime,
        ...(t.runtime === 'persistent' && t.template ? { template: t.template } : {}),
        ...v,
        last_run_at: last === null ? null : rfc3339(last),
        next_run_at: next === null ? null : rfc3339(next),
      };
    });
}
