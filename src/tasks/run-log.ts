import type { TaskRun } from '../observe/schemas.js';
import { MAX_RECENT_RUNS, startedMs } from './recent-runs.js';

interface Entry {
  run: TaskRun;
  /** First-seen order, kept when a later event replaces the run, so ties sort stably. */
  seq: number;
}

/**
 * The run log: runs as they pass through the task_run_* publisher, in memory and bounded. Events for one run share
 * its id, so started → succeeded/failed replaces the entry instead of adding one. It always holds the `cap` newest
 * runs by start time; anything older is history's to supply.
 */
export class RunLog {
  private readonly entries = new Map<string, Entry>();
  private seq = 0;

  constructor(private readonly cap = MAX_RECENT_RUNS) {}

  upsert(run: TaskRun): void {
    const existing = this.entries.get(run.id);
    if (existing) {
      existing.run = run;
      return;
    }
    this.entries.set(run.id, { run, seq: this.seq++ });
    if (this.entries.size > this.cap) this.entries.delete(this.sorted().at(-1)!.run.id);
  }

  /** Newest first by started_at; equal start times newest-recorded first. */
  list(): TaskRun[] {
    return this.sorted().map((e) => e.run);
  }

  /** When the task's newest known run started (ms), or null when the log has none of its runs. */
  lastRunAt(task: string): number | null {
    let last: number | null = null;
    for (const { run } of this.entries.values()) {
      const ms = startedMs(run);
      if (run.task === task && Number.isFinite(ms) && (last === null || ms > last)) last = ms;
    }
    return last;
  }

  private sorted(): Entry[] {
    return [...this.entries.values()].sort((a, b) => startedMs(b.run) - startedMs(a.run) || b.seq - a.seq);
  }
}
