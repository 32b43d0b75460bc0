import type { TaskConfig } from '../config/schema.js';
import type { Clock, TimerHandle } from '../core/clock.js';
import { localZone, nextRunAt } from './task-view.js';

/** A timer never waits longer than this; a far-off firing is re-checked instead (and timers cap near 24.8 days). */
const MAX_TIMER_MS = 6 * 3600_000;

/**
 * Fires each enabled task at its cron times, on the Clock. One timer per task, armed for its next firing strictly
 * after now; a config reload re-arms everything from the new schedules. A firing the daemon slept through is not
 * caught up: cron tasks are "at these times", and a burst of missed runs after downtime would surprise more than help.
 */
export class TaskScheduler {
  private readonly timers = new Map<string, TimerHandle>();
  private closed = false;

  constructor(
    private readonly deps: {
      clock: Clock;
      tasks(): Record<string, TaskConfig>;
      fire(task: string, scheduledAt: number): void;
    },
  ) {}

  /** Arms every enabled task; called at start and again on each config reload. */
  reschedule(): void {
    for (const t of this.timers.values()) t.cancel();
    this.timers.clear();
    if (this.closed) return;
    for (const [name, task] of Object.entries(this.deps.tasks())) if (task.enabled) this.arm(name, task);
  }

  close(): void {
    this.closed = true;
    for (const t of this.timers.values()) t.cancel();
    this.timers.clear();
  }

  /** `after`: the firing just made, so a timer that wakes a hair early cannot fire the same minute twice. */
  private arm(name: string, task: TaskConfig, after = 0): void {
    const now = this.deps.clock.now();
    const at = nextRunAt(task.schedule, task.timezone ?? localZone(), Math.max(now, after));
    if (at === null) return;
    const delay = Math.max(0, at - now);
    this.timers.set(
      name,
      this.deps.clock.setTimeout(
        () => {
          this.timers.delete(name);
          const current = this.deps.tasks()[name];
          if (!current?.enabled || this.closed) return;
          const due = delay <= MAX_TIMER_MS;
          if (due) this.deps.fire(name, at);
          this.arm(name, current, due ? at : 0);
        },
        Math.min(delay, MAX_TIMER_MS),
      ),
    );
  }
}
