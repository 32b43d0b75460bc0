import type { FastifyPluginAsync } from 'fastify';
import { z } from 'zod';
import { Access } from '../http/access.js';
import { ok } from '../http/envelope.js';
import { parseInput } from '../http/validate.js';
import { AgentName } from './agent-record.js';

/** What `leo hook <event>` posts: the agent it runs for (LEO_AGENT) and the harness's hook input, untouched. */
export const HookBody = z.strictObject({
  agent: AgentName,
  payload: z.record(z.string(), z.unknown()),
});
export type HookBody = z.infer<typeof HookBody>;

export const HookEvent = z.enum(['session-start', 'user-prompt-submit', 'permission-request', 'stop']);
export type HookEvent = z.infer<typeof HookEvent>;

/**
 * What a hook handler answers: `output` is printed by `leo hook` for the harness to read (a PermissionRequest
 * decision); absent means print nothing, which every hook event reads as "no opinion".
 */
export interface HookAnswer {
  output?: string;
}

/** `gone` aborts when the hook process hangs up before it has its answer (the harness ended it). */
export type HookHandler = (body: HookBody, gone: AbortSignal) => Promise<HookAnswer> | HookAnswer;
export type HookHandlers = Partial<Record<HookEvent, HookHandler>>;

/**
 * POST /hooks/:event, on the socket only: the harness hooks Leo installs hand their input to the daemon here. Each
 * domain registers the events it handles; an event nobody handles is acknowledged and ignored.
 */
const HookParams = z.object({ event: HookEvent });

export const hookRoutes: FastifyPluginAsync<{ handlers: HookHandlers }> = async (app, { handlers }) => {
  app.post(
    '/hooks/:event',
    { config: { access: Access.socketOnly }, bodyLimit: 8 * 1024 * 1024 },
    async (req, reply) => {
      const { event } = parseInput(HookParams, req.params, 'params');
      const body = parseInput(HookBody, req.body, 'body');
      const handler = handlers[event];
      if (!handler) return ok({});
      const gone = new AbortController();
      const onClose = () => {
        if (!reply.raw.writableFinished) gone.abort();
      };
      reply.raw.on('close', onClose);
      try {
        return ok(await handler(body, gone.signal));
      } finally {
        reply.raw.off('close', onClose);
      }
    },
  );
};
