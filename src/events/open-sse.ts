import type { FastifyReply } from 'fastify';
import type { FrameSink } from './sse-stream.js';

/** Hijacks the reply into an SSE response: the headers go out at once, the body is the caller's. */
export function openSse(reply: FastifyReply): FrameSink {
  reply.hijack();
  const raw = reply.raw;
  raw.writeHead(200, {
    'content-type': 'text/event-stream; charset=utf-8',
    'cache-control': 'no-cache, no-transform',
    connection: 'keep-alive',
    'x-accel-buffering': 'no',
  });
  // Node holds the headers back until the first body write: a stream with nothing to say yet must still open.
  raw.flushHeaders();
  return raw;
}
