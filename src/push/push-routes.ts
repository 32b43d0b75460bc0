import type { FastifyPluginAsync } from 'fastify';
import { z } from 'zod';
import { Access } from '../http/access.js';
import { HttpError, notFound, ok } from '../http/envelope.js';
import { parseInput } from '../http/validate.js';
import { AgentName } from '../agents/agent-record.js';
import type { PresenceBoard } from './presence-board.js';
import { NewSubscription, type SubscriptionStore } from './subscription-store.js';

export const PresenceReport = z.strictObject({ viewing: z.boolean() });

/**
 * Devices register where their pushes go; the VAPID public key is what a browser subscribes with. A client with a
 * thread on screen says so (and repeats it within the TTL) so the messages it is already showing do not push.
 */
const SubscriptionParams = z.object({ id: z.string().min(1).max(64) });
const AgentParams = z.object({ agent: AgentName });

export const pushRoutes: FastifyPluginAsync<{
  store: SubscriptionStore;
  presence: PresenceBoard;
  vapidPublicKey(): string;
  /** Why a webhook URL is refused (webhook-target.ts), or null. */
  webhookRefusal(url: string): Promise<string | null>;
}> = async (app, { store, presence, vapidPublicKey, webhookRefusal }) => {
  const opts = { config: { access: Access.operatorOrDevice } };
  app.get('/api/v1/push/vapid-public-key', opts, async () => ok({ public_key: vapidPublicKey() }));
  app.post('/api/v1/push/subscriptions', opts, async (req, reply) => {
    const sub = parseInput(NewSubscription, req.body, 'body');
    const refused = sub.provider === 'webhook' ? await webhookRefusal(sub.url) : null;
    if (refused) throw new HttpError(400, refused, 'webhook_target_refused', { field: 'url' });
    return reply.code(201).send(ok(store.add(sub)));
  });
  app.get('/api/v1/push/subscriptions', opts, async () => ok(store.summaries()));
  app.delete('/api/v1/push/subscriptions/:id', opts, async (req) => {
    const { id } = parseInput(SubscriptionParams, req.params, 'params');
    if (!store.remove(id)) throw notFound(`no push subscription ${id}`);
    return ok({ id, removed: true });
  });
  app.put('/api/v1/chat/:agent/presence', opts, async (req) => {
    const { agent } = parseInput(AgentParams, req.params, 'params');
    const { viewing } = parseInput(PresenceReport, req.body, 'body');
    const p = req.principal;
    const viewer = p && 'id' in p ? `${p.kind}:${p.id}` : (p?.kind ?? 'anonymous');
    return ok({ agent, ...presence.report(agent, viewer, viewing) });
  });
};
