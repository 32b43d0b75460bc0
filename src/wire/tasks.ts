import { z } from 'zod';
import { Task, TaskRun } from './fleet.js';

/**
 * Wire shapes of the task screens' routes (Leo Web, issue 17): pure zod, imported by the app. A task as /state shows
 * it, plus whose thread its cards go to and its own newest runs (recent_runs is capped across all tasks).
 */
export const TaskDetail = Task.extend({ owner: z.string(), runs: z.array(TaskRun) });
export type TaskDetail = z.infer<typeof TaskDetail>;

export const RunLogTail = z.object({
  task: z.string(),
  run_id: z.string(),
  /** The log's last RUN_LOG_TAIL_BYTES (cut to a whole line), as text; untrusted. */
  text: z.string(),
  /** The whole log's size in bytes. */
  bytes: z.number().int(),
  truncated: z.boolean(),
});
export type RunLogTail = z.infer<typeof RunLogTail>;

/** POST /api/v1/tasks/:name/run (202): the run now under way. */
export const TaskRunStarted = z.object({ task: z.string(), run_id: z.string() });

/** How many runs a task's detail lists, and how much of a run's log is served. */
export const TASK_RUNS_SHOWN = 20;
export const RUN_LOG_TAIL_BYTES = 256 * 1024;
