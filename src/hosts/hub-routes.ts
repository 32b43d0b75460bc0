import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { Access } from '../http/access.js';
import { ok } from '../http/envelope.js';
import { okOf } from '../http/openapi.js';
import { AddHostBody, HostEntry, HostName, RemovedHost } from '../wire/host.js';
import type { HostRegistry } from './host-registry.js';

/**
 * This daemon as a hub (issue 31): the hosts it follows, added from a join link, listed with a live probe, removed.
 * The owner's: the CLI on the socket, and Leo Web on the owner's phone (a device with the fleet scope, as for the
 * device list) pasting a link. No answer carries a peer token.
 */
export const hubRoutes: FastifyPluginAsyncZod<{ registry: HostRegistry }> = async (app, { registry }) => {
  const opts = { config: { access: Access.deviceScopes } };
  app.post(
    '/api/v1/hosts',
    { ...opts, schema: { body: AddHostBody, response: { 201: okOf(HostEntry) } } },
    async (req, reply) => reply.code(201).send(ok(await registry.add(req.body.name, req.body.link))),
  );
  app.get('/api/v1/hosts', { ...opts, schema: { response: { 200: okOf(z.array(HostEntry)) } } }, async () =>
    ok(await registry.list()),
  );
  const removing = { ...opts, schema: { params: z.object({ name: HostName }), response: { 200: okOf(RemovedHost) } } };
  app.delete('/api/v1/hosts/:name', removing, async (req) => ok(await registry.remove(req.params.name)));
};
