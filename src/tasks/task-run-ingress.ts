import { z } from 'zod';
import { isRealTime, rfc3339 } from '../core/time.js';
import type { TaskRun } from '../wire/fleet.js';

/** POST /observe/task-run's body cap (observability-api.md, Task-run ingress). */
export const TASK_RUN_BODY_MAX_BYTES = 64 * 1024;

/** Code-point limits for the retained, rebroadcast display text; longer values are cut, not refused. */
export const TASK_RUN_LIMITS = { id: 200, task: 200, model: 200, harness: 200, workspace: 1024, error: 4096 } as const;

export const TaskRunEventType = z.enum(['task_run_started', 'task_run_succeeded', 'task_run_failed']);
export type TaskRunEventType = z.infer<typeof TaskRunEventType>;

const STATUS_FOR = {
  task_run_started: 'running',
  task_run_succeeded: 'succeeded',
  task_run_failed: 'failed',
} as const satisfies Record<TaskRunEventType, TaskRun['status']>;

const RFC3339 = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?([+-]\d\d:\d\d|Z)$/;
const timestamp = z
  .string()
  .regex(RFC3339, { error: 'expected an RFC 3339 time with an offset' })
  .refine(isRealTime, { error: 'not a real time' });
const text = z.string().nullish();

/**
 * The body as a `leo run` subprocess sends it. Objects are non-strict so unknown fields are dropped, and `status` is
 * read only to be ignored: the status always comes from `type`.
 */
export const TaskRunEventBody = z.object({
  type: TaskRunEventType,
  run: z.object({
    id: z.string(),
    task: z.string(),
    status: z.unknown().optional(),
    started_at: timestamp.nullish(),
    ended_at: timestamp.nullish(),
    duration_ms: z.number().int().min(0).nullish(),
    error: text,
    workspace: text,
    model: text,
    harness: text,
  }),
});

const cut = (s: string | null | undefined, max: number): string => {
  if (!s) return '';
  // Only long values pay for the code-point split; cutting by code point never leaves half a surrogate pair.
  return s.length <= max ? s : Array.from(s).slice(0, max).join('');
};

export type NormalizedTaskRunEvent = { ok: true; type: TaskRunEventType; run: TaskRun } | { ok: false; error: string };

/**
 * Turns an untrusted task-run event into a run the daemon can publish and retain: status derived from type, id and
 * task required, display text cut to its limit. A run that omits started_at is stamped `receivedAt` (the route's
 * clock), never refused for it. A running run has ended_at null and no duration; error is null unless failed.
 */
export function normalizeTaskRunEvent(body: unknown, receivedAt: number): NormalizedTaskRunEvent {
  const parsed = TaskRunEventBody.safeParse(body);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const where = issue.path.length ? issue.path.join('.') : 'body';
    return { ok: false, error: `${where}: ${issue.message}` };
  }
  const { type, run: input } = parsed.data;
  const id = cut(input.id.trim(), TASK_RUN_LIMITS.id);
  const task = cut(input.task.trim(), TASK_RUN_LIMITS.task);
  if (!id) return { ok: false, error: 'run.id: must not be empty' };
  if (!task) return { ok: false, error: 'run.task: must not be empty' };
  const startedAt = input.started_at ?? rfc3339(receivedAt);

  const status = STATUS_FOR[type];
  const run: TaskRun = {
    id,
    task,
    status,
    started_at: startedAt,
    error: status === 'failed' && input.error ? cut(input.error, TASK_RUN_LIMITS.error) : null,
    workspace: cut(input.workspace, TASK_RUN_LIMITS.workspace),
    model: cut(input.model, TASK_RUN_LIMITS.model),
    harness: cut(input.harness, TASK_RUN_LIMITS.harness),
  };
  if (status === 'running') run.ended_at = null;
  else {
    if (input.ended_at) run.ended_at = input.ended_at;
    if (input.duration_ms != null) run.duration_ms = input.duration_ms;
  }
  return { ok: true, type, run };
}
