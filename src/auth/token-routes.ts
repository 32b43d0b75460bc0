import type { FastifyPluginAsync } from 'fastify';
import { z } from 'zod';
import { Access } from '../http/access.js';
import { conflict, notFound, ok } from '../http/envelope.js';
import { okOf } from '../http/openapi.js';
import { parseInput } from '../http/validate.js';
import {
  DuplicateTokenNameError,
  TokenName,
  type IssuedTokenKind,
  TokenRecord,
  type TokenStore,
} from './token-store.js';

export const CreateDeviceBody = z.strictObject({ name: TokenName });
export const CreateClientBody = z.strictObject({ name: TokenName, can_post: z.boolean().default(false) });
const IdParams = z.object({ id: z.string().min(1).max(128) });
/** A token as issued: its record and the secret itself, shown this once. */
export const IssuedToken = TokenRecord.extend({ token: z.string() });
export const RevokedToken = TokenRecord.extend({ revoked: z.literal(true) });

/**
 * Operator-only management of paired devices and API clients; the same operations back `leo device|client`. Revoking
 * deletes the token's row (its push subscriptions go with it: a foreign key), then `revoked` ends what it still holds.
 */
export const tokenRoutes: FastifyPluginAsync<{ tokens: TokenStore; revoked(record: TokenRecord): void }> = async (
  app,
  { tokens, revoked },
) => {
  const issue = (kind: IssuedTokenKind, name: string, canPost: boolean) => {
    try {
      const { record, token } = tokens.issue(kind, name, canPost);
      return ok({ ...record, token });
    } catch (err) {
      if (err instanceof DuplicateTokenNameError) throw conflict(err.message);
      throw err;
    }
  };
  const revoke = (kind: IssuedTokenKind, id: string) => {
    const record = tokens.revoke(kind, id);
    if (!record) throw notFound(`no ${kind} with id or name "${id}"`);
    revoked(record);
    return ok({ ...record, revoked: true });
  };
  const opts = { config: { access: Access.operator } };
  const issuing = (body: z.ZodType) => ({ ...opts, schema: { body, response: { 201: okOf(IssuedToken) } } });
  const listing = { ...opts, schema: { response: { 200: okOf(z.array(TokenRecord)) } } };
  const revoking = { ...opts, schema: { params: IdParams, response: { 200: okOf(RevokedToken) } } };

  app.post('/api/v1/devices', issuing(CreateDeviceBody), async (req, reply) => {
    const body = parseInput(CreateDeviceBody, req.body, 'body');
    return reply.code(201).send(issue('device', body.name, false));
  });
  app.get('/api/v1/devices', listing, async () => ok(tokens.list('device')));
  app.delete('/api/v1/devices/:id', revoking, async (req) =>
    revoke('device', parseInput(IdParams, req.params, 'params').id),
  );

  app.post('/api/v1/clients', issuing(CreateClientBody), async (req, reply) => {
    const body = parseInput(CreateClientBody, req.body, 'body');
    return reply.code(201).send(issue('client', body.name, body.can_post));
  });
  app.get('/api/v1/clients', listing, async () => ok(tokens.list('client')));
  app.delete('/api/v1/clients/:id', revoking, async (req) =>
    revoke('client', parseInput(IdParams, req.params, 'params').id),
  );
};
