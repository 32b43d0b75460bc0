import type { FastifyPluginAsync } from 'fastify';
import { Access } from '../http/access.js';
import type { SseHub } from './sse-hub.js';

/**
 * GET /api/v1/events: the SSE stream, the one /api route without an envelope. The socket also serves it as
 * /events for local apps (leo-chat.md).
 */
export const eventsRoutes: FastifyPluginAsync<{ hub: SseHub }> = async (app, { hub }) => {
  const handler = async (_req: unknown, reply: import('fastify').FastifyReply) => {
    reply.hijack();
    hub.open(reply.raw);
  };
  app.get('/api/v1/events', { config: { access: Access.readers } }, handler);
  app.get('/events', { config: { access: Access.socketOnly } }, handler);
};
