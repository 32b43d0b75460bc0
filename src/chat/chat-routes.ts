import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod, ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { AgentName } from '../wire/names.js';
import { Access } from '../http/access.js';
import { ok } from '../http/envelope.js';
import { notFound, type LeoError } from '../core/leo-error.js';
import { okOf } from '../http/openapi.js';
import { AttachmentRef, Message, MessagePage, ReadMarker, Thread } from '../wire/message.js';
import type { ChatService } from './threads/chat-service.js';
import { HOSTS_MISSING_HEADER, SENDER_HEADER, senderOfHeader } from '../wire/host.js';
import type { Principal } from '../wire/token-kinds.js';
import { chatOffError } from './chat-off.js';
import type { AskService } from './asks/asks.js';
import type { PermissionPrompts } from './permissions/permission-prompts.js';
import { AnswerBody } from '../wire/ask-answer.js';
import type { ChatStore } from './threads/chat-store.js';
import { isRepeatOf } from './threads/repeat-send.js';
import { SendBody } from '../wire/send-body.js';
import { UNCLAIMED, type AttachmentStore } from './attachments/attachments.js';
import { HttpError } from '../http/envelope.js';
import fs from 'node:fs';
import { Readable } from 'node:stream';

export const UploadQuery = z.strictObject({
  filename: z.string().min(1).max(1024),
  agent: AgentName.optional(),
});
export const PageQuery = z.strictObject({
  before: z.string().min(1).max(64).optional(),
  after: z.string().min(1).max(64).optional(),
  limit: z.coerce.number().int().min(1).max(500).default(50),
});
export const ReadBody = z.strictObject({ up_to: z.string().min(1).max(64).optional() }).nullable();
/** GET /api/v1/chat/open: one agent's or every thread's. */
export const OpenQuery = z.strictObject({ agent: AgentName.optional() });
const AgentParams = z.object({ agent: AgentName });
const MessageParams = z.object({ id: z.string().min(1).max(64) });
const MessageOfAgent = AgentParams.extend(MessageParams.shape);
/** dismiss takes no body; an empty JSON object is tolerated. */
const EmptyBody = z.strictObject({}).nullable();

export interface ChatRoutesDeps {
  chat: ChatService;
  asks: AskService;
  prompts: PermissionPrompts;
  store: ChatStore;
  attachments: AttachmentStore;
  agentExists(agent: string): boolean;
  /**
   * Why a name with no agent here is not a 404: a move is bringing the agent here (issue 32), 503 to try again in a
   * moment; else null.
   */
  arriving(agent: string): LeoError | null;
  maxAttachmentBytes(): number;
  /** chat.enabled, read per request: while false every route here answers chatOffError. */
  enabled(): boolean;
  /** On a hub, the lists of every followed host merged with this daemon's own (hosts/lists); otherwise its own. */
  elsewhere: {
    open(own: Message[]): Promise<Listed<Message>>;
    threads(own: Thread[]): Promise<Listed<Thread>>;
  };
}

/** A list across machines, and the hosts that did not answer it in time (named in HOSTS_MISSING_HEADER). */
export interface Listed<T> {
  items: T[];
  missing: string[];
}

/**
 * /api/v1/chat: operator and paired-device tokens everywhere; API clients with can_post may also send (their
 * messages carry sender `client:<name>`). The socket serves the same paths without a token.
 */
export const chatRoutes: FastifyPluginAsyncZod<ChatRoutesDeps> = async (app, deps) => {
  const readers = { config: { access: Access.onAgents } };
  const posters = {
    config: { access: { tokens: ['operator', 'device', 'client', 'peer'], clientMustPost: true } },
  } as const;
  const reading = <S extends object = object>(response: z.ZodType, schema = {} as S) => ({
    ...readers,
    schema: { ...schema, response: { 200: okOf(response) } },
  });
  const onMessage = <B extends z.ZodType>(body: B) => reading(Message, { params: MessageOfAgent, body });
  // After the server's access check (a root hook runs first), so a caller without a token still gets its 401.
  app.addHook('onRequest', async () => {
    if (!deps.enabled()) throw chatOffError();
  });
  const agentOf = ({ agent }: { agent: string }) => {
    if (!deps.agentExists(agent) && !deps.store.newestId(agent))
      throw deps.arriving(agent) ?? notFound(`no agent named "${agent}"`);
    return agent;
  };

  /**
   * A list across machines, naming the hosts that did not answer in a header. A hub asking this daemon as its host
   * gets this daemon's own: a hub does not follow another hub's hosts through it.
   */
  const across = async <T>(
    req: FastifyRequest,
    reply: FastifyReply,
    own: T[],
    merge: (own: T[]) => Promise<Listed<T>>,
  ) => {
    if (req.principal?.kind === 'peer') return ok(own);
    const { items, missing } = await merge(own);
    if (missing.length > 0) reply.header(HOSTS_MISSING_HEADER, missing.join(','));
    return ok(items);
  };

  app.get('/api/v1/chat/threads', reading(z.array(Thread)), async (req, reply) =>
    across(req, reply, deps.chat.threads(), (own) => deps.elsewhere.threads(own)),
  );

  // The inbox: every open ask, permission prompt and questions card across threads, newest first.
  app.get('/api/v1/chat/open', reading(z.array(Message), { querystring: OpenQuery }), async (req, reply) => {
    if (req.query.agent) return ok(deps.store.openCards(req.query.agent));
    return across(req, reply, deps.store.openCards(), (own) => deps.elsewhere.open(own));
  });

  app.get(
    '/api/v1/chat/:agent/messages',
    reading(MessagePage, { params: AgentParams, querystring: PageQuery }),
    async (req) => {
      const agent = agentOf(req.params);
      const q = req.query;
      return ok(
        deps.store.page(agent, {
          limit: q.limit,
          ...(q.before ? { before: q.before } : {}),
          ...(q.after ? { after: q.after } : {}),
        }),
      );
    },
  );

  app.post(
    '/api/v1/chat/:agent/messages',
    {
      ...posters,
      schema: { params: AgentParams, body: SendBody, response: { 200: okOf(Message), 201: okOf(Message) } },
    },
    async (req, reply) => {
      const agent = agentOf(req.params);
      if (!deps.agentExists(agent)) throw deps.arriving(agent) ?? notFound(`no agent named "${agent}"`);
      const { body } = req;
      const sender = senderOf(req.principal, req.headers[SENDER_HEADER]);
      const stored = body.client_id ? deps.store.byClientId(agent, body.client_id) : null;
      if (stored) {
        if (!isRepeatOf(stored, { ...body, sender }))
          throw new HttpError(
            409,
            'client_id is already used by a different message in this thread',
            'client_id_reused',
          );
        return reply.code(200).send(ok(stored));
      }
      const message = await deps.chat.send(agent, {
        text: body.text,
        ...(sender ? { sender } : {}),
        ...(body.client_id ? { client_id: body.client_id } : {}),
        ...(body.reply_to ? { reply_to: body.reply_to } : {}),
        ...(body.attachments ? { attachmentIds: body.attachments } : {}),
      });
      return reply.code(201).send(ok(message));
    },
  );

  // Uploads stream to disk: the raw body is the file, whatever its content type (text/plain and JSON included), so
  // this one route gets its own context with a single pass-through parser.
  await app.register(async (uploads) => {
    uploads.removeAllContentTypeParsers();
    uploads.addContentTypeParser('*', (_req, payload, done) => done(null, payload));
    uploads
      .withTypeProvider<ZodTypeProvider>()
      .post(
        '/api/v1/chat/uploads',
        { ...posters, schema: { querystring: UploadQuery, response: { 201: okOf(AttachmentRef) } } },
        async (req, reply) => {
          const q = req.query;
          if (q.agent && !deps.agentExists(q.agent)) throw notFound(`no agent named "${q.agent}"`);
          const declared = Number(req.headers['content-length']);
          if (declared > deps.maxAttachmentBytes())
            throw new HttpError(413, `attachment is larger than ${deps.maxAttachmentBytes()} bytes`, 'body_too_large');
          const ref = await deps.attachments.saveStream(
            q.agent ?? UNCLAIMED,
            q.filename,
            req.headers['content-type'],
            // A request without a body never reaches the pass-through parser: it uploads an empty file.
            (req.body as Readable | undefined) ?? Readable.from([]),
            deps.maxAttachmentBytes(),
          );
          return reply.code(201).send(ok(ref));
        },
      );
  });

  app.get(
    '/api/v1/chat/:agent/attachments/:id',
    { ...readers, schema: { params: MessageOfAgent } },
    async (req, reply) => {
      const agent = agentOf(req.params);
      const { id } = req.params;
      const found = deps.attachments.fileOf(agent, id);
      if (!found) throw notFound(`no attachment ${id} in ${agent}'s thread`);
      if (!found.ref.available) throw new HttpError(410, `attachment ${id} was pruned`, 'gone');
      return reply
        .type(found.ref.mime)
        .header('content-disposition', `attachment; filename*=UTF-8''${encodeURIComponent(found.ref.filename)}`)
        .header('x-content-type-options', 'nosniff')
        .send(fs.createReadStream(found.path));
    },
  );

  app.post('/api/v1/chat/:agent/messages/:id/answer', onMessage(AnswerBody), async (req) => {
    const agent = agentOf(req.params);
    const { id } = req.params;
    const m = deps.store.get(id);
    // Permission prompts and questions cards are held by a hook; every other ask is the agent's own.
    return ok(await (m && deps.prompts.owns(m) ? deps.prompts : deps.asks).answer(agent, id, req.body));
  });

  app.post('/api/v1/chat/:agent/messages/:id/dismiss', onMessage(EmptyBody), async (req) => {
    const agent = agentOf(req.params);
    return ok(await deps.prompts.dismiss(agent, req.params.id));
  });

  // A voice note held for having no words: transcribed again, or delivered as its audio alone.
  for (const [action, how] of [
    ['retry', 'retry'],
    ['send-anyway', 'anyway'],
  ] as const)
    app.post(`/api/v1/chat/:agent/messages/:id/${action}`, onMessage(EmptyBody), async (req) => {
      const agent = agentOf(req.params);
      return ok(deps.chat.release(agent, req.params.id, how));
    });

  app.post('/api/v1/chat/:agent/read', reading(ReadMarker, { params: AgentParams, body: ReadBody }), async (req) => {
    const agent = agentOf(req.params);
    return ok(deps.chat.markRead(agent, req.body?.up_to));
  });
};

/**
 * Whom a post is from, as its thread keeps it: an API client's own post, or one a hub passed on for an API client of
 * its own (SENDER_HEADER, believed of a peer only: a hub may post as the owner, so naming a client only narrows what
 * the post may do). Undefined: the owner's, from a device or the operator, here or through a hub.
 */
function senderOf(caller: Principal | null | undefined, passedOn: string | string[] | undefined): string | undefined {
  if (caller?.kind === 'client') return `client:${caller.name}`;
  if (caller?.kind !== 'peer' || passedOn === undefined) return undefined;
  const sender = typeof passedOn === 'string' ? senderOfHeader(passedOn) : null;
  if (!sender) throw new HttpError(400, `${SENDER_HEADER} names no API client`, 'bad_sender');
  return sender;
}
