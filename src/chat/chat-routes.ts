import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { AgentName } from '../agents/agent-record.js';
import { Access } from '../http/access.js';
import { notFound, ok } from '../http/envelope.js';
import { parseInput } from '../http/validate.js';
import type { ChatService } from './chat-service.js';
import type { ChatStore } from './chat-store.js';

export const SendBody = z.strictObject({
  text: z.string().trim().min(1, 'must not be empty').max(100_000),
  reply_to: z.string().min(1).max(64).optional(),
});
export const PageQuery = z.strictObject({
  before: z.string().min(1).max(64).optional(),
  after: z.string().min(1).max(64).optional(),
  limit: z.coerce.number().int().min(1).max(500).default(50),
});
export const ReadBody = z.strictObject({ up_to: z.string().min(1).max(64).optional() }).nullable();
const AgentParams = z.object({ agent: AgentName });

export interface ChatRoutesDeps {
  chat: ChatService;
  store: ChatStore;
  agentExists(agent: string): boolean;
}

/**
 * /api/v1/chat: operator and paired-device tokens everywhere; API clients with can_post may also send (their
 * messages carry sender `client:<name>`). The socket serves the same paths without a token.
 */
export const chatRoutes: FastifyPluginAsync<ChatRoutesDeps> = async (app, deps) => {
  const readers = { config: { access: { tokens: ['operator', 'device'] as const } } };
  const agentOf = (req: FastifyRequest) => {
    const { agent } = parseInput(AgentParams, req.params, 'params');
    if (!deps.agentExists(agent) && !deps.store.newestId(agent)) throw notFound(`no agent named "${agent}"`);
    return agent;
  };

  app.get('/api/v1/chat/threads', readers, async () => ok(deps.chat.threads()));

  app.get('/api/v1/chat/:agent/messages', readers, async (req) => {
    const agent = agentOf(req);
    const q = parseInput(PageQuery, req.query, 'query');
    return ok(
      deps.store.page(agent, {
        limit: q.limit,
        ...(q.before ? { before: q.before } : {}),
        ...(q.after ? { after: q.after } : {}),
      }),
    );
  });

  app.post(
    '/api/v1/chat/:agent/messages',
    { config: { access: { tokens: ['operator', 'device', 'client'], clientMustPost: true } } },
    async (req, reply) => {
      const agent = agentOf(req);
      if (!deps.agentExists(agent)) throw notFound(`no agent named "${agent}"`);
      const body = parseInput(SendBody, req.body, 'body');
      const p = req.principal;
      const sender = p?.kind === 'client' ? `client:${p.name}` : undefined;
      const message = deps.chat.send(agent, {
        text: body.text,
        ...(sender ? { sender } : {}),
        ...(body.reply_to ? { reply_to: body.reply_to } : {}),
      });
      return reply.code(201).send(ok(message));
    },
  );

  app.post('/api/v1/chat/:agent/read', readers, async (req) => {
    const agent = agentOf(req);
    const body = parseInput(ReadBody, req.body ?? null, 'body');
    const upTo = body?.up_to ?? deps.store.newestId(agent);
    if (upTo) deps.store.markRead(agent, upTo);
    return ok({ agent, read_up_to: upTo });
  });
};
