import { Readable, Transform } from 'node:stream';
import type { FastifyPluginAsyncZod, ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { Access } from '../../../http/access.js';
import { HttpError, ok } from '../../../http/envelope.js';
import { okOf } from '../../../http/openapi.js';
import { AgentPack } from '../../../wire/agent-pack.js';
import {
  HeldParts,
  MarkBody,
  Measured,
  MoveAgentBody,
  MoveIdParams,
  PackBody,
  PartName,
  SideDone,
  SpawnBody,
} from '../../../wire/move-side.js';
import type { MoveSideService } from './move-side-service.js';

/** `/parts/<name>`: the name may hold `/`, so the route takes the rest of the path and checks it as a pack's part. */
const PartParams = MoveIdParams.extend({ '*': PartName });
const SPAWN_BODY_LIMIT = 16 * 1024 * 1024;

/**
 * The side routes a hub calls on each daemon of a move or copy (issue 32; docs/API.md): the source's park, resume,
 * pack, parts and mark, the target's held parts, part upload, spawn, settle and discard. The hub's own (a peer hub's token,
 * or the operator's on the hub itself): no device or client moves an agent but through the hub's move routes.
 */
export const moveSideRoutes: FastifyPluginAsyncZod<{ moves: MoveSideService; maxPartBytes(): number }> = async (
  app,
  { moves, maxPartBytes },
) => {
  const { source, target } = moves;
  const access = { access: Access.operatorOrPeer };
  const done = { 200: okOf(SideDone) };
  const posting = <B extends z.ZodType>(body: B) => ({
    config: access,
    schema: { params: MoveIdParams, body, response: done },
  });

  app.post('/api/v1/moves/:id/park', posting(MoveAgentBody), async (req) => {
    await source.park(req.params.id, req.body.agent);
    return ok({ id: req.params.id });
  });
  app.post('/api/v1/moves/:id/resume', posting(MoveAgentBody), async (req) => {
    await source.resume(req.params.id, req.body.agent);
    return ok({ id: req.params.id });
  });
  app.post(
    '/api/v1/moves/:id/measure',
    { config: access, schema: { params: MoveIdParams, body: MoveAgentBody, response: { 200: okOf(Measured) } } },
    async (req) => ok({ bytes: await source.measure(req.body.agent) }),
  );
  app.post(
    '/api/v1/moves/:id/pack',
    { config: access, schema: { params: MoveIdParams, body: PackBody, response: { 200: okOf(AgentPack) } } },
    async (req) => ok(await source.pack(req.params.id, req.body.agent, req.body.kind)),
  );
  app.get('/api/v1/moves/:id/parts/*', { config: access, schema: { params: PartParams } }, async (req, reply) =>
    reply.type('application/octet-stream').send(source.part(req.params.id, req.params['*'])),
  );
  app.post('/api/v1/moves/:id/mark', posting(MarkBody), async (req) => {
    const { agent, to, as } = req.body;
    await source.mark(req.params.id, agent, to, as);
    return ok({ id: req.params.id });
  });

  app.get(
    '/api/v1/moves/:id/held',
    { config: access, schema: { params: MoveIdParams, response: { 200: okOf(HeldParts) } } },
    async (req) => ok({ parts: target.held(req.params.id) }),
  );
  // A part's bytes are the raw body, whatever its declared type: this route gets its own pass-through parser.
  await app.register(async (uploads) => {
    uploads.removeAllContentTypeParsers();
    uploads.addContentTypeParser('*', (_req, payload, next) => next(null, payload));
    uploads
      .withTypeProvider<ZodTypeProvider>()
      .put(
        '/api/v1/moves/:id/parts/*',
        { config: access, schema: { params: PartParams, response: done } },
        async (req) => {
          const limit = maxPartBytes();
          if (Number(req.headers['content-length']) > limit) throw tooLarge(limit);
          // A request without a body never reaches the parser: an empty part.
          const body = (req.body as Readable | undefined) ?? Readable.from([]);
          await target.receive(req.params.id, req.params['*'], capped(body, limit));
          return ok({ id: req.params.id });
        },
      );
  });
  // The pack lists every part, a thread's attachments each among them: more than the usual JSON body.
  app.post('/api/v1/moves/:id/spawn', { ...posting(SpawnBody), bodyLimit: SPAWN_BODY_LIMIT }, async (req) => {
    await target.spawn(req.params.id, req.body.as, req.body.pack, req.body.kind);
    return ok({ id: req.params.id });
  });
  app.post('/api/v1/moves/:id/settle', posting(z.strictObject({}).nullable()), async (req) => {
    await target.settle(req.params.id);
    return ok({ id: req.params.id });
  });
  app.post('/api/v1/moves/:id/discard', posting(z.strictObject({}).nullable()), async (req) => {
    await target.discard(req.params.id);
    return ok({ id: req.params.id });
  });
};

const tooLarge = (limit: number) => new HttpError(413, `a part is larger than ${limit} bytes`, 'body_too_large');

/**
 * `body` passed on until it passes `limit`, then failed with a 413 (a chunked body declares no length); a body that
 * breaks off (the hub went away) fails it too, so the part is never taken for whole.
 */
function capped(body: Readable, limit: number): Transform {
  let bytes = 0;
  const counted = new Transform({
    transform(chunk: Buffer, _enc, next) {
      bytes += chunk.length;
      next(bytes > limit ? tooLarge(limit) : null, chunk);
    },
  });
  body.once('error', (err) => counted.destroy(err));
  return body.pipe(counted);
}
