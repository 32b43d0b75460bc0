import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { Access } from '../http/access.js';
import '../wire/events.js';
import type { SseHub } from './sse-hub.js';
import type { StreamCaps } from './stream-caps.js';

const EventStream = {
  description:
    'Server-Sent Events: `event: <type>` and `data: <JSON>`; the data of each type is the component Event.<type> ' +
    '(Event.hello first).',
  content: { 'text/event-stream': { schema: z.string() } },
};

/**
 * GET /api/v1/events: the SSE stream, the one /api route without an envelope. The socket also serves it as
 * /events for local apps (leo-chat.md). What a stream carries depends on who opened it (SseHub).
 */
export const eventsRoutes: FastifyPluginAsync<{ hub: SseHub; caps: StreamCaps }> = async (app, { hub, caps }) => {
  const handler = async (req: FastifyRequest, reply: FastifyReply) => {
    // Refused (429/503 with the envelope) before the stream starts; counted until its connection closes.
    caps.holdOpen(req.principal, reply.raw);
    reply.hijack();
    // The access hook has set the principal on every request that reaches a handler.
    hub.open(reply.raw, req.principal!);
  };
  const schema = { response: { 200: EventStream } };
  app.get('/api/v1/events', { config: { access: Access.readers }, schema }, handler);
  app.get('/events', { config: { access: Access.socketOnly }, schema }, handler);
};
