import { signal } from '@preact/signals';
import type { TaskRun } from '../../wire/fleet.js';
import { TASK_RUNS_SHOWN, type TaskDetail } from '../../wire/tasks.js';
import type { FleetEvent } from '../api/events.js';
import { api, onUnpaired } from './auth.js';

/**
 * The tasks as the daemon last listed them (GET /api/v1/tasks), read when a task screen opens and on every
 * (re)connect while one is open, and kept current in between by the task_run_* events.
 */
export const tasks = signal<TaskDetail[] | null>(null);
export const tasksError = signal<string | null>(null);

/** How many task screens are open: a reconnect reads the list again only for them. */
let watchers = 0;

/**
 * The runs heard on the stream while each read of the list is in flight: the daemon may have answered the read
 * before those runs began or ended, and its answer must not take them back.
 */
const heardDuringReads = new Set<TaskRun[]>();

export async function loadTasks(): Promise<void> {
  const heard: TaskRun[] = [];
  heardDuringReads.add(heard);
  try {
    const list = await api.tasks();
    tasks.value = heard.reduce(withRun, list);
    tasksError.value = null;
  } catch (err) {
    if (!(await onUnpaired(err))) tasksError.value = err instanceof Error ? err.message : String(err);
  } finally {
    heardDuringReads.delete(heard);
  }
}

/** Loads now, for a task screen being open; returns its closing. */
export function watchTasks(): () => void {
  watchers++;
  void loadTasks();
  return () => {
    watchers--;
  };
}

/** A (re)connect: events may have been missed while the stream was down. */
export function refreshTasks(): void {
  if (watchers > 0) void loadTasks();
}

/**
 * A run's event patched into its task: the run replaces its older self by id, newest first, as the daemon lists. A
 * run known to have ended stays ended: a "started" heard late is older news.
 */
export function withRun(list: TaskDetail[], run: TaskRun): TaskDetail[] {
  return list.map((t) => {
    if (t.name !== run.task) return t;
    const known = t.runs.find((r) => r.id === run.id);
    if (known && known.status !== 'running' && run.status === 'running') return t;
    const runs = [run, ...t.runs.filter((r) => r.id !== run.id)]
      .sort((a, b) => Date.parse(b.started_at) - Date.parse(a.started_at))
      .slice(0, TASK_RUNS_SHOWN);
    const last =
      t.last_run_at && Date.parse(t.last_run_at) > Date.parse(run.started_at) ? t.last_run_at : run.started_at;
    return { ...t, runs, last_run_at: last };
  });
}

export function applyTaskEvent(e: FleetEvent): void {
  if (e.type !== 'task_run_started' && e.type !== 'task_run_succeeded' && e.type !== 'task_run_failed') return;
  const { run } = e.data;
  for (const heard of heardDuringReads) heard.push(run);
  const list = tasks.value;
  if (!list) return;
  // A scheduled run starting means its task's next run moved on, which the event does not carry.
  const due = list.find((t) => t.name === run.task)?.next_run_at;
  tasks.value = withRun(list, run);
  if (e.type === 'task_run_started' && due && Date.parse(due) <= Date.parse(run.started_at)) refreshTasks();
}
