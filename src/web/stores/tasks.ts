import { signal } from '@preact/signals';
import type { TaskDetail } from '../../tasks/task-wire.js';
import { api, onUnpaired } from './auth.js';

/** The tasks as the daemon last listed them (GET /api/v1/tasks), refreshed while a task screen is open. */
export const tasks = signal<TaskDetail[] | null>(null);
export const tasksError = signal<string | null>(null);

/** How often an open task screen refreshes: runs start and finish on their own, and next runs move on. */
const REFRESH_MS = 3000;

export async function loadTasks(): Promise<void> {
  try {
    tasks.value = await api.tasks();
    tasksError.value = null;
  } catch (err) {
    if (!(await onUnpaired(err))) tasksError.value = err instanceof Error ? err.message : String(err);
  }
}

/** Loads now and every few seconds while the page is visible; returns the stop. */
export function watchTasks(): () => void {
  void loadTasks();
  const timer = setInterval(() => {
    if (document.visibilityState === 'visible') void loadTasks();
  }, REFRESH_MS);
  return () => clearInterval(timer);
}
