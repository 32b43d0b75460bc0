import type { FastifyPluginAsync } from 'fastify';
import { z } from 'zod';
import { Access } from '../http/access.js';
import { notFound, ok } from '../http/envelope.js';
import { parseInput } from '../http/validate.js';
import { NewSubscription, type SubscriptionStore } from './subscription-store.js';

/** Devices register where their pushes go; the VAPID public key is what a browser subscribes with. */
export const pushRoutes: FastifyPluginAsync<{ store: SubscriptionStore; vapidPublicKey(): string }> = async (
  app,
  { store, vapidPublicKey },
) => {
  const opts = { config: { access: Access.operatorOrDevice } };
  app.get('/api/v1/push/vapid-public-key', opts, async () => ok({ public_key: vapidPublicKey() }));
  app.post('/api/v1/push/subscriptions', opts, async (req, reply) =>
    reply.code(201).send(ok(store.add(parseInput(NewSubscription, req.body, 'body')))),
  );
  app.get('/api/v1/push/subscriptions', opts, async () => ok(store.summaries()));
  app.delete('/api/v1/push/subscriptions/:id', opts, async (req) => {
    const { id } = parseInput(z.object({ id: z.string().min(1).max(64) }), req.params, 'params');
    if (!store.remove(id)) throw notFound(`no push subscription ${id}`);
    return ok({ id, removed: true });
  });
};
