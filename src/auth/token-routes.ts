import type { FastifyPluginAsync } from 'fastify';
import { z } from 'zod';
import { Access } from '../http/access.js';
import { conflict, notFound, ok } from '../http/envelope.js';
import { parseInput } from '../http/validate.js';
import {
  DuplicateTokenNameError,
  TokenName,
  type IssuedTokenKind,
  type TokenRecord,
  type TokenStore,
} from './token-store.js';

export const CreateDeviceBody = z.strictObject({ name: TokenName });
export const CreateClientBody = z.strictObject({ name: TokenName, can_post: z.boolean().default(false) });
const IdParams = z.object({ id: z.string().min(1).max(128) });

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

  app.post('/api/v1/devices', opts, async (req, reply) => {
    const body = parseInput(CreateDeviceBody, req.body, 'body');
    return reply.code(201).send(issue('device', body.name, false));
  });
  app.get('/api/v1/devices', opts, async () => ok(tokens.list('device')));
  app.delete('/api/v1/devices/:id', opts, async (req) =>
    revoke('device', parseInput(IdParams, req.params, 'params').id),
  );

  app.post('/api/v1/clients', opts, async (req, reply) => {
    const body = parseInput(CreateClientBody, req.body, 'body');
    return reply.code(201).send(issue('client', body.name, body.can_post));
  });
  app.get('/api/v1/clients', opts, async () => ok(tokens.list('client')));
  app.delete('/api/v1/clients/:id', opts, async (req) =>
    revoke('client', parseInput(IdParams, req.params, 'params').id),
  );
};
