import type { FastifyPluginAsync } from 'fastify';
import { z } from 'zod';
import { Access } from '../http/access.js';
import { HttpError, notFound, ok } from '../http/envelope.js';
import { parseInput } from '../http/validate.js';
import { NameSchema } from '../core/names.js';
import { TaskFailureBody } from './failure-card.js';
import type { RunPublisher } from './run-publisher.js';
import type { TaskCards } from './task-cards.js';
import { TASK_RUN_BODY_MAX_BYTES, normalizeTaskRunEvent } from './task-run-ingress.js';
import type { TaskRunner } from './task-runner.js';

/**
 * Task routes: the socket-only ingress `leo run` announces its runs and failure cards through, and the operator's
 * "run this task now" for the daemon's own runner.
 */
const TaskParams = z.object({ name: NameSchema });

export const taskRoutes: FastifyPluginAsync<{
  publisher: RunPublisher;
  cards: TaskCards;
  runner: TaskRunner;
  taskExists(name: string): boolean;
}> = async (app, { publisher, cards, runner, taskExists }) => {
  app.post(
    '/observe/task-run',
    { config: { access: Access.socketOnly }, bodyLimit: TASK_RUN_BODY_MAX_BYTES },
    async (req) => {
      const event = normalizeTaskRunEvent(req.body);
      if (!event.ok) throw new HttpError(400, event.error);
      publisher.publish(event.type, event.run);
      return ok({ id: event.run.id, status: event.run.status });
    },
  );

  app.post('/chat/task-failure', { config: { access: Access.socketOnly } }, async (req) =>
    ok(cards.postFailure(parseInput(TaskFailureBody, req.body, 'body'))),
  );

  app.post('/api/v1/tasks/:name/run', { config: { access: Access.operator } }, async (req, reply) => {
    const { name } = parseInput(TaskParams, req.params, 'params');
    if (!taskExists(name)) throw notFound(`no task named "${name}"`);
    const started = runner.fire(name);
    if (!started) throw new HttpError(409, `task ${name} is already running`, 'task_running');
    return reply.code(202).send(ok({ task: name, run_id: started.runId }));
  });
};
