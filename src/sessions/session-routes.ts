import type { Socket } from 'node:net';
import type { FastifyReply } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import websocket from '@fastify/websocket';
import type { WebSocket } from 'ws';
import { z } from 'zod';
import type { Clock } from '../core/clock.js';
import { sseFrame } from '../events/event.js';
import { FlushScheduler } from '../events/flush-scheduler.js';
import { SseStream, type FrameSink } from '../events/sse-stream.js';
import { openSse } from '../events/open-sse.js';
import { Access } from '../http/access.js';
import { HttpError } from '../http/envelope.js';
import { INLINE_MAX_BYTES, userMessageParts } from './attachments.js';
import { parseChatRequest } from './chat-request.js';
import { expandMentions } from './mentions.js';
import { invalid, parseOverrides, type Validated } from './overrides.js';
import type { SessionService, TurnOutcome } from './session-service.js';
import {
  ChatTurnResponse,
  FireAndForgetResponse,
  SessionCancelResponse,
  SessionConfigResponse,
  SessionPatchResponse,
  type LlmSettings,
  SessionDeletedResponse,
  SessionListResponse,
  SessionMessagesResponse,
  SessionResponse,
} from '../wire/sessions.js';
import type { SessionStreams, StreamEvent } from './session-streams.js';
import type { StreamCaps } from '../events/stream-caps.js';

/** How long fire-and-forget waits for a new session's id before answering without one (the spec's guard). */
const NEW_SESSION_GUARD_MS = 10_000;
const SSE_HEARTBEAT_MS = 20_000;
/** Streams flushed per loop turn, as the /api/v1/events hub does. */
const FLUSH_SLICE = 64;
/**
 * The chat body's own limit (the global web.body_limit is 1 MiB): room for four attachments at the 8 MB inline cap
 * as base64 (4/3 of the decoded size) plus 1 MiB for the message and the JSON around them. An attachment over the cap
 * inside this limit is answered by the spec's 400 VALIDATION_ERROR naming it; only a body past the limit is a 413.
 */
export const CHAT_BODY_MAX_BYTES = 4 * Math.ceil(INLINE_MAX_BYTES / 3) * 4 + 1024 * 1024;

const AgentParams = z.object({ name: z.string().min(1).max(100) });
const SessionParams = z.object({ id: z.string().min(1).max(100) });
const ListQuery = z.object({ limit: z.coerce.number().int().min(1).max(500).default(50) });

/**
 * The agent chat endpoint (agent-chat-endpoint.md): `POST /agents/:name/chat` in JSON, SSE and fire-and-forget
 * modes, the session routes, and `/ws` for live `session.stream` events. Successes have the spec's bare shapes;
 * errors keep Leo's envelope, which already carries the spec's `error`, `code` and `details`.
 */
export const sessionRoutes: FastifyPluginAsyncZod<{
  sessions: SessionService;
  streams: SessionStreams;
  /** The agent's workspace and the roots @-mentions must never reach (Leo's state folder). */
  mentionScope(agent: string): { workspace: string; deniedRoots: string[] };
  clock: Clock;
  /** The stream caps /api/v1/events counts against: each SSE response and /ws socket here is one stream. */
  caps: StreamCaps;
  /** web.sse_queue: frames a client that is not reading may have waiting before it is cut, as on /api/v1/events. */
  maxQueued(): number;
}> = async (app, { sessions, streams, mentionScope, clock, caps, maxQueued }) => {
  const opts = { config: { access: Access.operatorOrPeer } };
  const flushes = new FlushScheduler(FLUSH_SLICE);
  /**
   * Every live stream of this endpoint (per-call SSE, session SSE, /ws) gets the events hub's bounded queue: a client
   * that stops reading is cut once maxQueued frames wait, instead of buffering every session without limit.
   */
  const bounded = (sink: FrameSink, onClosed: () => void) =>
    new SseStream(sink, { maxQueued: maxQueued(), flushes, onDropped: () => undefined, onClosed });
  /** An SSE response streaming `key`'s events (a turn's or a session's) with a heartbeat, until `done` or a hang-up. */
  const sseOf = (reply: FastifyReply, key: string) => {
    let stop = () => undefined as void;
    const stream = bounded(openSse(reply), () => stop());
    const unsubscribe = streams.subscribe(key, (e) => stream.deliver({ frame: sseFrame(e.event, e.data) }));
    const beat = clock.setInterval(() => stream.comment('heartbeat'), SSE_HEARTBEAT_MS);
    stop = () => {
      beat.cancel();
      unsubscribe();
    };
    return stream;
  };

  const answering = (response: Record<number, z.ZodType>) => ({ ...opts, schema: { params: SessionParams, response } });
  const chat = {
    ...opts,
    bodyLimit: CHAT_BODY_MAX_BYTES,
    schema: { params: AgentParams, response: { 200: ChatTurnResponse, 202: FireAndForgetResponse } },
  };
  app.post('/agents/:name/chat', chat, async (req, reply) => {
    const { name } = req.params;
    const parsed = checked(parseChatRequest(req.body ?? {}));
    sessions.chatAgent(name);
    // Refused before the turn begins: a turn whose stream was refused would run with no one to read it.
    if (parsed.response === 'sse') caps.holdOpen(req.principal, reply.raw);
    let message: string | null = null;
    let parts: ReturnType<typeof userMessageParts> = [];
    let firstAttachmentType: string | null | undefined;
    if (!parsed.continue) {
      message = parsed.message.includes('@')
        ? await expandMentions(parsed.message, mentionScope(name))
        : parsed.message;
      if (parsed.attachments.length > 0) {
        parts = userMessageParts(message, parsed.attachments);
      }
      firstAttachmentType = parsed.firstAttachmentType;
    }
    const turn = sessions.begin({
      agent: name,
      message,
      sessionId: parsed.sessionId ?? undefined,
      parts,
      firstAttachmentType,
      overrides: parsed.overrides,
    });

    if (parsed.response === 'fireAndForget') {
      // The session row exists once begin() returns, well inside the guard; the guard bounds a slow store.
      void turn.outcome.catch(() => undefined);
      const id = await Promise.race([
        Promise.resolve(turn.session.id),
        new Promise<null>((r) => setTimeout(() => r(null), NEW_SESSION_GUARD_MS).unref()),
      ]);
      return reply.code(202).send({ accepted: true, sessionId: id } satisfies FireAndForgetResponse);
    }

    if (parsed.response === 'sse') {
      // This call's own turn only: a turn queued behind another on the session must not end on the other's `done`.
      const stream = sseOf(reply, turn.id);
      let finished = false;
      reply.raw.on('close', () => {
        if (!finished) turn.cancel('client_disconnect');
      });
      await turn.outcome.catch(() => undefined);
      finished = true;
      stream.end();
      return reply;
    }

    // JSON: a client that hangs up cancels the turn it was waiting for.
    const onClose = () => {
      if (!reply.raw.writableEnded) turn.cancel('client_disconnect');
    };
    reply.raw.on('close', onClose);
    const outcome = await turn.outcome;
    reply.raw.off('close', onClose);
    return sendOutcome(reply, turn.session.id, outcome);
  });

  const list = {
    ...opts,
    schema: { params: AgentParams, querystring: ListQuery, response: { 200: SessionListResponse } },
  };
  app.get('/agents/:name/sessions', list, async (req): Promise<SessionListResponse> => {
    return { sessions: sessions.list(req.params.name, req.query.limit) };
  });

  app.get('/sessions/:id', answering({ 200: SessionResponse }), async (req): Promise<SessionResponse> => {
    const { id } = req.params;
    return { session: sessions.session(id), busy: sessions.busy(id) };
  });

  app.delete(
    '/sessions/:id',
    answering({ 200: SessionDeletedResponse }),
    async (req): Promise<SessionDeletedResponse> => {
      const { id } = req.params;
      sessions.remove(id);
      return { sessionId: id, deleted: true };
    },
  );

  app.get(
    '/sessions/:id/messages',
    answering({ 200: SessionMessagesResponse }),
    async (req): Promise<SessionMessagesResponse> => {
      const { id } = req.params;
      const session = sessions.session(id);
      return { sessionId: id, messages: sessions.messages(id), error: session.last_error };
    },
  );

  app.get('/sessions/:id/stream', { ...opts, schema: { params: SessionParams } }, async (req, reply) => {
    const { id } = req.params;
    sessions.session(id);
    // HEAD: the headers alone (see SseHub.open); waiting for the close would hang the request.
    if (req.method === 'HEAD') return void openSse(reply).end();
    caps.holdOpen(req.principal, reply.raw);
    const stream = sseOf(reply, id);
    await new Promise<void>((resolve) => reply.raw.on('close', () => resolve()));
    stream.end();
    return reply;
  });

  app.post('/sessions/:id/cancel', answering({ 200: SessionCancelResponse }), async (req) => {
    const { id } = req.params;
    sessions.session(id);
    return { sessionId: id, cancelled: sessions.cancel(id, 'user_cancel') };
  });

  app.patch('/sessions/:id', answering({ 200: SessionPatchResponse }), async (req) => {
    const { id } = req.params;
    return { session: sessions.patch(id, checked(parsePatch(req.body))) };
  });

  app.get('/sessions/:id/config', answering({ 200: SessionConfigResponse }), async (req) => {
    const { id } = req.params;
    return sessions.config(id);
  });

  await app.register(websocket);
  app.route({
    method: 'GET',
    url: '/ws',
    ...opts,
    // Counted before the upgrade, so a refusal is a plain HTTP 429/503; the stream ends with its TCP socket.
    preValidation: async (req) => {
      if (req.ws) caps.holdOpen(req.principal, req.socket);
    },
    // A plain GET (no Upgrade) is answered like any other route's error, not with the plugin's empty 404.
    handler: () => {
      throw new HttpError(
        426,
        '/ws is a WebSocket endpoint: connect with an Upgrade: websocket request',
        'upgrade_required',
      );
    },
    wsHandler: (socket, req) => {
      let unsubscribe = () => undefined as unknown;
      const stream = bounded(wsSink(socket, req.socket), () => unsubscribe());
      unsubscribe = streams.subscribe('*', (e: StreamEvent) => {
        const type = e.event === 'session.budget_exceeded' ? e.event : 'session.stream';
        // One JSON line per frame: wsSink sends each line as its own message.
        stream.deliver({
          frame: `${JSON.stringify({ type, sessionId: e.sessionId, event: e.event, data: e.data })}\n`,
        });
      });
    },
  });
};

/**
 * `PATCH /sessions/:id`: the overrides whitelist at the top level (fields named without a prefix), plus `status` to
 * close or reopen a session — the spec gives no other way to close one, and SESSION_CLOSED needs one.
 */
function parsePatch(body: unknown): Validated<{ overrides?: LlmSettings; status?: 'active' | 'closed' }> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return invalid('body', 'must be a JSON object');
  const { status, ...rest } = body as Record<string, unknown>;
  if (status !== undefined && status !== 'active' && status !== 'closed')
    return invalid('status', 'must be "active" or "closed"');
  const overrides = parseOverrides(rest, '');
  if (!overrides.ok) return overrides;
  return {
    ok: true,
    value: {
      ...(Object.keys(overrides.value).length ? { overrides: overrides.value } : {}),
      ...(status ? { status } : {}),
    },
  };
}

function checked<T>(v: Validated<T>): T {
  if (!v.ok) throw new HttpError(400, v.message, v.code, v.details);
  return v.value;
}

function sendOutcome(reply: FastifyReply, sessionId: string, o: TurnOutcome) {
  if (!o.ok)
    return reply
      .code(o.status)
      .send({ ok: false, error: o.error, code: o.code, ...(o.details ? { details: o.details } : {}) });
  return reply.send({
    sessionId,
    message: { role: 'assistant', content: o.content },
    tokenUsage: o.done.tokenUsage,
    toolCalls: o.done.toolCalls,
    ...(o.done.cancelled ? { cancelled: true, cancelReason: o.done.cancelReason ?? null } : {}),
    done: o.done,
  } satisfies ChatTurnResponse);
}

/**
 * A /ws socket as a bounded stream's sink. Frames are JSON lines, sent one message each; the socket under the
 * WebSocket tells when it is backed up and when it drains, as an HTTP response does.
 */
function wsSink(socket: WebSocket, raw: Socket): FrameSink {
  return {
    write(chunk) {
      for (const line of String(chunk).split('\n')) if (line) socket.send(line);
      return !raw.writableNeedDrain;
    },
    end: () => socket.close(),
    destroy: () => socket.terminate(),
    on(event, listener) {
      if (event === 'drain') raw.on('drain', listener);
      else socket.on('close', listener);
    },
  };
}
