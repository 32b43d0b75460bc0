import { rfc3339 } from '../core/time.js';
import type { TaskRun } from '../wire/fleet.js';
import type { Database } from '../store/database.js';

interface Row {
  id: string;
  task: string;
  status: 'succeeded' | 'failed';
  started_at: string | null;
  ended_at: string | null;
  duration_ms: number | null;
  completed_at: string;
  error: string | null;
  workspace: string;
  model: string;
  harness: string;
  attempts: number | null;
  log_path: string | null;
}

/** One stored run with what history keeps beyond the wire shape. */
export interface HistoryEntry {
  run: TaskRun;
  completedAt: number;
  attempts: number | null;
  logPath: string | null;
}

/**
 * Durable task history (chat.db task_runs): finished runs only, since a running firing lives in the run log. It tops
 * up recent_runs with runs the run log evicted or never saw, e.g. right after a restart.
 */
export class RunHistory {
  constructor(private readonly db: Database) {}

  /** Stores a finished run; recording the same id again replaces it. */
  record(run: TaskRun, extra: { completedAt: number; attempts?: number; logPath?: string }): void {
    if (run.status === 'running') throw new Error(`task run ${run.id} is still running; history keeps finished runs`);
    this.db
      .prepare(
        `INSERT OR REPLACE INTO task_runs (id, task, status, started_at, ended_at, duration_ms, completed_at, error,
           workspace, model, harness, attempts, log_path) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        run.id,
        run.task,
        run.status,
        run.started_at,
        run.ended_at ?? null,
        run.duration_ms ?? null,
        new Date(extra.completedAt).toISOString(),
        run.error,
        run.workspace,
        run.model,
        run.harness,
        extra.attempts ?? null,
        extra.logPath ?? null,
      );
  }

  /** The newest `limit` runs by completion, newest first. */
  recent(limit: number): TaskRun[] {
    const rows = this.db
      .prepare('SELECT * FROM task_runs ORDER BY completed_at DESC, id DESC LIMIT ?')
      .all(Math.max(0, limit)) as Row[];
    return rows.map(toRun);
  }

  /** One task's newest `limit` runs by completion, newest first. */
  recentOf(task: string, limit: number): TaskRun[] {
    const rows = this.db
      .prepare('SELECT * FROM task_runs WHERE task = ? ORDER BY completed_at DESC, id DESC LIMIT ?')
      .all(task, Math.max(0, limit)) as Row[];
    return rows.map(toRun);
  }

  get(id: string): HistoryEntry | null {
    const row = this.db.prepare('SELECT * FROM task_runs WHERE id = ?').get(id) as Row | undefined;
    if (!row) return null;
    return {
      run: toRun(row),
      completedAt: Date.parse(row.completed_at),
      attempts: row.attempts,
      logPath: row.log_path,
    };
  }

  /**
   * When the task's newest completed run started (ms), or its completion when the start was never recorded: the same
   * instant recent() reports as that run's started_at, so this agrees with the run log's lastRunAt for one run.
   */
  lastRunAt(task: string): number | null {
    const row = this.db
      .prepare(
        'SELECT started_at, completed_at FROM task_runs WHERE task = ? ORDER BY completed_at DESC, id DESC LIMIT 1',
      )
      .get(task) as Pick<Row, 'started_at' | 'completed_at'> | undefined;
    if (!row) return null;
    const started = row.started_at === null ? NaN : Date.parse(row.started_at);
    return Number.isNaN(started) ? Date.parse(row.completed_at) : started;
  }
}

/**
 * An entry recorded without a start time reports its completion as started_at (the field is mandatory) and omits
 * ended_at and duration_ms: a completed run never claims started_at == ended_at as a stand-in for "unknown".
 */
function toRun(row: Row): TaskRun {
  const run: TaskRun = {
    id: row.id,
    task: row.task,
    status: row.status,
    started_at: row.started_at ?? rfc3339(Date.parse(row.completed_at)),
    error: row.error,
    workspace: row.workspace,
    model: row.model,
    harness: row.harness,
  };
  if (row.started_at === null) return run;
  // A null ended_at on the wire means "still running", so an unknown end is left out instead.
  if (row.ended_at !== null) run.ended_at = row.ended_at;
  if (row.duration_ms !== null) run.duration_ms = row.duration_ms;
  return run;
}
