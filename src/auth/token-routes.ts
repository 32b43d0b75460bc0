import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { Access } from '../http/access.js';
import { HttpError, ok } from '../http/envelope.js';
import { notFound } from '../core/leo-error.js';
import { okOf } from '../http/openapi.js';
import { Caller, callerOf } from '../wire/caller.js';
import type { TokenGrants, TokenStore } from './token-store.js';
import { DeviceScopeBody, IssuedToken, TokenName, type IssuedTokenKind, TokenRecord } from '../wire/tokens.js';

export const CreateDeviceBody = z.strictObject({ name: TokenName, fleet: z.boolean().default(false) });
export const CreateClientBody = z.strictObject({ name: TokenName, can_post: z.boolean().default(false) });
const IdParams = z.object({ id: z.string().min(1).max(128) });
export const RevokedToken = TokenRecord.extend({ revoked: z.literal(true) });

export interface TokenRoutesDeps {
  tokens: TokenStore;
  /** Ends what a revoked token still holds. */
  revoked(record: TokenRecord): void;
  /** A device's fleet scope changed: its open streams end, so its app reconnects and reads what it may do now. */
  scopeChanged(record: TokenRecord): void;
}

/**
 * Management of paired devices, API clients and peer hubs, the operator's; the same operations back
 * `leo device|client` and `leo host peers|revoke`. Revoking deletes the token's row (its push subscriptions go with it: a foreign key), then `revoked` ends what it
 * still holds. A device granted the fleet scope (the owner's phone) may also list the devices and grant or take back
 * the scope, from Leo Web's device list; pairing and revoking stay the operator's. `GET /api/v1/me` tells any token
 * what it is and may do.
 */
export const tokenRoutes: FastifyPluginAsyncZod<TokenRoutesDeps> = async (app, { tokens, revoked, scopeChanged }) => {
  const issue = (kind: IssuedTokenKind, name: string, grants: TokenGrants) => {
    const { record, token } = tokens.issue(kind, name, grants);
    return ok({ ...record, token });
  };
  const revoke = (kind: IssuedTokenKind, id: string) => {
    const record = tokens.revoke(kind, id);
    if (!record) throw notFound(`no ${kind} with id or name "${id}"`);
    revoked(record);
    return ok({ ...record, revoked: true as const });
  };
  const opts = { config: { access: Access.operator } };
  const issuing = <B extends z.ZodType>(body: B) => ({
    ...opts,
    schema: { body, response: { 201: okOf(IssuedToken) } },
  });
  const listing = { ...opts, schema: { response: { 200: okOf(z.array(TokenRecord)) } } };
  const revoking = { ...opts, schema: { params: IdParams, response: { 200: okOf(RevokedToken) } } };

  app.post('/api/v1/devices', issuing(CreateDeviceBody), async (req, reply) => {
    return reply.code(201).send(issue('device', req.body.name, { fleet: req.body.fleet }));
  });
  app.get('/api/v1/devices', { ...listing, config: { access: Access.deviceScopes } }, async () =>
    ok(tokens.list('device')),
  );
  const scoping = {
    config: { access: Access.deviceScopes },
    schema: { params: IdParams, body: DeviceScopeBody, response: { 200: okOf(TokenRecord) } },
  };
  app.patch('/api/v1/devices/:id', scoping, async (req, reply) => {
    const { id } = req.params;
    const record = tokens.setFleet(id, req.body.fleet);
    if (!record) throw notFound(`no device with id or name "${id}"`);
    // Once this answer is out: a device changing its own scope would otherwise lose the connection carrying it.
    reply.raw.once('close', () => scopeChanged(record));
    return ok(record);
  });
  app.delete('/api/v1/devices/:id', revoking, async (req) => revoke('device', req.params.id));

  app.post('/api/v1/clients', issuing(CreateClientBody), async (req, reply) => {
    return reply.code(201).send(issue('client', req.body.name, { canPost: req.body.can_post }));
  });
  app.get('/api/v1/clients', listing, async () => ok(tokens.list('client')));
  app.delete('/api/v1/clients/:id', revoking, async (req) => revoke('client', req.params.id));

  // Peer hubs (issue 31) are issued through a host's join code (hosts/host-routes.ts), listed and revoked here.
  app.get('/api/v1/peers', listing, async () => ok(tokens.list('peer')));
  app.delete('/api/v1/peers/:id', revoking, async (req) => revoke('peer', req.params.id));

  const me = { config: { access: Access.anyToken }, schema: { response: { 200: okOf(Caller) } } };
  app.get('/api/v1/me', me, async (req) => {
    const p = req.principal;
    // Access.anyToken admits no anonymous caller; the check keeps the type honest.
    if (!p || p.kind === 'anonymous') throw new HttpError(401, 'missing bearer token', 'unauthorized');
    return ok(callerOf(p));
  });
};
