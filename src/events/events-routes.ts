import type { FastifyPluginAsync } from 'fastify';
import { Access } from '../http/access.js';
import type { SseHub } from './sse-hub.js';
import type { StreamCaps } from './stream-caps.js';

/**
 * GET /api/v1/events: the SSE stream, the one /api route without an envelope. The socket also serves it as
 * /events for local apps (leo-chat.md).
 */
export const eventsRoutes: FastifyPluginAsync<{ hub: SseHub; caps: StreamCaps }> = async (app, { hub, caps }) => {
  const handler = async (req: import('fastify').FastifyRequest, reply: import('fastify').FastifyReply) => {
    // Refused (429/503 with the envelope) before the stream starts; counted until its connection closes.
    const release = caps.admit(req.principal);
    reply.raw.once('close', release);
    reply.hijack();
    hub.open(reply.raw);
  };
  app.get('/api/v1/events', { config: { access: Access.readers } }, handler);
  app.get('/events', { config: { access: Access.socketOnly } }, handler);
};
