import { Cron } from 'croner';
import type { Config } from '../config/schema.js';
import { rfc3339 } from '../core/time.js';
import type { Task } from '../observe/schemas.js';

/** The local time zone name, what a task without `timezone` is scheduled in. */
export const localZone = (): string => Intl.DateTimeFormat().resolvedOptions().timeZone;

/** Next firing strictly after `now`, or null for a disabled task or a schedule that never fires again. */
export function nextRunAt(schedule: string, timezone: string, now: number): number | null {
  try {
    const next = new Cron(schedule, { timezone, paused: true }).nextRun(new Date(now));
    return next ? next.getTime() : null;
  } catch {
    return null;
  }
}

/** Config-level description of every task for /api/v1/state, with the values resolved for its next firing. */
export function taskViews(config: Config, now: number, lastRunAt: (task: string) => number | null): Task[] {
  return Object.keys(config.tasks)
    .sort()
    .map((name) => {
      const t = config.tasks[name]!;
      const template = t.template ? config.templates[t.template] : undefined;
      const timezone = t.timezone ?? localZone();
      const last = lastRunAt(name);
      const next = t.enabled ? nextRunAt(t.schedule, timezone, now) : null;
      return {
        name,
        schedule: t.schedule,
        timezone,
        enabled: t.enabled,
        runtime: t.runtime,
        ...(t.template ? { template: t.template } : {}),
        workspace: t.workspace ?? template?.workspace ?? '',
        model: t.model ?? template?.model ?? config.defaults.model ?? '',
        harness: t.harness ?? template?.harness ?? config.defaults.harness,
        last_run_at: last === null ? null : rfc3339(last),
        next_run_at: next === null ? null : rfc3339(next),
      };
    });
}
