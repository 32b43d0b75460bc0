import type { Clock } from '../core/clock.js';
import type { EventBus } from '../events/bus.js';
import type { TaskRun } from '../wire/fleet.js';
import { MAX_RECENT_RUNS, mergeRecentRuns } from './recent-runs.js';
import type { TaskRunEventType } from './task-run-ingress.js';
import type { RunHistory } from './run-history.js';
import type { RunLog } from './run-log.js';

/**
 * The one place runs are announced, whoever produced them (the daemon's own firings or `leo run` over the socket):
 * the event goes out as `{run}`, the run log keeps it, and a finished run is written to the durable history.
 */
export class RunPublisher {
  constructor(private readonly deps: { bus: EventBus; clock: Clock; log: RunLog; history: RunHistory }) {}

  publish(type: TaskRunEventType, run: TaskRun, extra: { attempts?: number; logPath?: string } = {}): void {
    this.deps.log.upsert(run);
    if (run.status !== 'running') this.deps.history.record(run, { completedAt: this.deps.clock.now(), ...extra });
    this.deps.bus.publish(type, { run });
  }

  recent(cap = MAX_RECENT_RUNS): TaskRun[] {
    return mergeRecentRuns(this.deps.log.list(), this.deps.history.recent(cap), cap);
  }

  /** One task's newest runs, a running one included. */
  recentOf(task: string, cap: number): TaskRun[] {
    const log = this.deps.log.list().filter((r) => r.task === task);
    return mergeRecentRuns(log, this.deps.history.recentOf(task, cap), cap);
  }

  /** Where a finished run's log is, from its stored record (a persistent run, or one still running, has none). */
  logPathOf(runId: string): { task: string; logPath: string } | null {
    const entry = this.deps.history.get(runId);
    return entry?.logPath ? { task: entry.run.task, logPath: entry.logPath } : null;
  }

  lastRunAt(task: string): number | null {
    const fromLog = this.deps.log.lastRunAt(task);
    const fromHistory = this.deps.history.lastRunAt(task);
    if (fromLog === null) return fromHistory;
    return fromHistory === null ? fromLog : Math.max(fromLog, fromHistory);
  }
}
