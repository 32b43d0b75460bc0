import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { Access } from '../../http/access.js';
import { ok } from '../../http/envelope.js';
import { okOf } from '../../http/openapi.js';
import { CopyBody, MoveBody, MoveOperation } from '../../wire/move.js';
import type { MoveRunner } from './operation/move-runner.js';

/** `name` (the hub's own agent) or `name@host`. */
const AgentParams = z.object({ name: z.string().min(1).max(128) });
const IdParams = z.object({ id: z.string().min(1).max(64) });
const ByAgent = z.object({ agent: z.string().min(1).max(128) });

/**
 * A hub's moves and copies of agents between its machines (issue 32): started here and answered 202 with the
 * operation, which then runs in the background (its move_progress events, or GET /api/v1/moves/:id, follow it). The
 * owner's to run, like the hosts the hub follows: the operator, and a device with the fleet scope.
 */
export const moveRoutes: FastifyPluginAsyncZod<{ runner: MoveRunner }> = async (app, { runner }) => {
  const config = { access: Access.deviceScopes };
  const started = { 202: okOf(MoveOperation) };
  for (const kind of ['move', 'copy'] as const)
    app.post(
      `/api/v1/agents/:name/${kind}`,
      { config, schema: { params: AgentParams, body: kind === 'move' ? MoveBody : CopyBody, response: started } },
      async (req, reply) => reply.code(202).send(ok(await runner.start(kind, req.params.name, req.body))),
    );

  app.get(
    '/api/v1/moves/:id',
    { config, schema: { params: IdParams, response: { 200: okOf(MoveOperation) } } },
    async (req) => ok(runner.get(req.params.id)),
  );

  app.get(
    '/api/v1/moves',
    { config, schema: { querystring: ByAgent, response: { 200: okOf(z.array(MoveOperation)) } } },
    async (req) => ok(runner.of(req.query.agent)),
  );

  app.post('/api/v1/moves/:id/retry', { config, schema: { params: IdParams, response: started } }, async (req, reply) =>
    reply.code(202).send(ok(runner.retry(req.params.id))),
  );
};
