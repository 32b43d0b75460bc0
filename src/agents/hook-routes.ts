import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { Access } from '../http/access.js';
import { ok } from '../http/envelope.js';
import { okOf } from '../http/openapi.js';
import { AgentName } from '../wire/names.js';
import type { HookRouter } from './hook-router.js';

/** What `leo hook <event>` posts: the agent it runs for (LEO_AGENT) and the harness's hook input, untouched. */
export const HookBody = z.strictObject({
  agent: AgentName,
  payload: z.record(z.string(), z.unknown()),
});
export type HookBody = z.infer<typeof HookBody>;

export const HookEvent = z.enum(['session-start', 'user-prompt-submit', 'permission-request', 'stop', 'stop-failure']);
export type HookEvent = z.infer<typeof HookEvent>;

/**
 * POST /hooks/:event, on the socket only: the harness hooks Leo installs hand their input to the daemon here. Each
 * domain subscribes to the events it handles on the router; an event nobody handles is acknowledged and ignored.
 */
const HookParams = z.object({ event: HookEvent });
/** What `leo hook` prints for the harness, when a handler has something to say (hook-router.ts). */
const HookAnswer = z.object({ output: z.string().optional() });

export const hookRoutes: FastifyPluginAsyncZod<{ router: HookRouter }> = async (app, { router }) => {
  app.post(
    '/hooks/:event',
    {
      config: { access: Access.socketOnly },
      bodyLimit: 8 * 1024 * 1024,
      schema: { params: HookParams, body: HookBody, response: { 200: okOf(HookAnswer) } },
    },
    async (req, reply) => {
      const gone = new AbortController();
      const onClose = () => {
        if (!reply.raw.writableFinished) gone.abort();
      };
      reply.raw.on('close', onClose);
      try {
        return ok(await router.dispatch(req.params.event, req.body, gone.signal));
      } finally {
        reply.raw.off('close', onClose);
      }
    },
  );
};
