import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Clock } from '../core/clock.js';
import { Access } from '../http/access.js';
import { HttpError, ok } from '../http/envelope.js';
import { notFound } from '../core/leo-error.js';
import { okOf } from '../http/openapi.js';
import { selfValidated } from '../http/validate.js';
import { NameSchema } from '../wire/names.js';
import { TaskFailureBody } from './failure-card.js';
import type { RunPublisher } from './run-publisher.js';
import type { TaskCards } from './task-cards.js';
import { TASK_RUN_BODY_MAX_BYTES, TaskRunEventBody, normalizeTaskRunEvent } from './task-run-ingress.js';
import type { TaskRunner } from './task-runner.js';
import { TaskRunStatus, type Task } from '../wire/fleet.js';
import { readTail } from './log-tail.js';
import { RUN_LOG_TAIL_BYTES, RunLogTail, TASK_RUNS_SHOWN, TaskDetail, TaskRunStarted } from '../wire/tasks.js';

/**
 * Task routes: the socket-only ingress `leo run` announces its runs and failure cards through, "run this task now"
 * for the daemon's own runner, and what Leo Web's task screens read (each task with its owner and runs, a run's log).
 */
const TaskParams = z.object({ name: NameSchema });
const RunParams = z.object({ name: NameSchema, id: z.string().min(1).max(200) });
/** POST /observe/task-run: the run as announced; POST /chat/task-failure: the card posted, in whose thread. */
const RunAnnounced = z.object({ id: z.string(), status: TaskRunStatus });
const FailureCardPosted = z.object({ id: z.string(), agent: z.string() });

export const taskRoutes: FastifyPluginAsyncZod<{
  /** Stamps a run announced without started_at with the time it was received. */
  clock: Clock;
  publisher: RunPublisher;
  cards: TaskCards;
  runner: TaskRunner;
  taskExists(name: string): boolean;
  /** Every task as /state describes it. */
  tasks(): Task[];
  /** Where a oneshot run writes its log while it runs (its stored record names it only once it has finished). */
  runLogPath(task: string, runId: string): string;
}> = async (app, { clock, publisher, cards, runner, taskExists, tasks, runLogPath }) => {
  app.post(
    '/observe/task-run',
    {
      config: { access: Access.socketOnly },
      bodyLimit: TASK_RUN_BODY_MAX_BYTES,
      schema: { body: TaskRunEventBody, response: { 200: okOf(RunAnnounced) } },
      // normalizeTaskRunEvent checks the body with the announcement's own refusals.
      validatorCompiler: selfValidated,
    },
    async (req) => {
      const event = normalizeTaskRunEvent(req.body, clock.now());
      if (!event.ok) throw new HttpError(400, event.error);
      publisher.publish(event.type, event.run);
      return ok({ id: event.run.id, status: event.run.status });
    },
  );

  const failure = {
    config: { access: Access.socketOnly },
    schema: { body: TaskFailureBody, response: { 200: okOf(FailureCardPosted) } },
  };
  app.post('/chat/task-failure', failure, async (req) => ok(cards.postFailure(req.body)));

  const owner = { config: { access: Access.onAgents } };
  app.get('/api/v1/tasks', { ...owner, schema: { response: { 200: okOf(z.array(TaskDetail)) } } }, async () =>
    ok(
      tasks().map((t): TaskDetail => ({
        ...t,
        owner: cards.ownerOf(t.name).agent,
        runs: publisher.recentOf(t.name, TASK_RUNS_SHOWN),
      })),
    ),
  );

  // The log's path comes from the stored run, or from the run the daemon lists as running, never from the request:
  // the id only looks the run up. A running run's log may not exist yet; it reads as empty until it does.
  const log = { ...owner, schema: { params: RunParams, response: { 200: okOf(RunLogTail) } } };
  app.get('/api/v1/tasks/:name/runs/:id/log', log, async (req) => {
    const { name, id } = req.params;
    const stored = publisher.logPathOf(id);
    const running =
      !stored &&
      tasks().some((t) => t.name === name && t.runtime === 'oneshot') &&
      publisher.recentOf(name, TASK_RUNS_SHOWN).some((r) => r.id === id && r.status === 'running');
    const logPath = stored?.task === name ? stored.logPath : running ? runLogPath(name, id) : null;
    if (!logPath) throw notFound(`task ${name} has no run ${id} with a log`);
    const tail = await readTail(logPath, RUN_LOG_TAIL_BYTES).catch((err: NodeJS.ErrnoException) => {
      if (err.code !== 'ENOENT') throw err;
      if (running) return { text: '', bytes: 0, truncated: false };
      throw new HttpError(410, `the log of run ${id} is gone`, 'log_gone');
    });
    return ok({ task: name, run_id: id, ...tail } satisfies RunLogTail);
  });

  // A device granted the fleet scope may run a task now, as it may start and stop agents: it runs what leo.yaml
  // already says, as configured.
  const run = {
    config: { access: Access.fleet },
    schema: { params: TaskParams, response: { 202: okOf(TaskRunStarted) } },
  };
  app.post('/api/v1/tasks/:name/run', run, async (req, reply) => {
    const { name } = req.params;
    if (!taskExists(name)) throw notFound(`no task named "${name}"`);
    const started = runner.fire(name);
    if (!started) throw new HttpError(409, `task ${name} is already running`, 'task_running');
    return reply.code(202).send(ok({ task: name, run_id: started.runId }));
  });
};
