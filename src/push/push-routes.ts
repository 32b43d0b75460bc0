import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { Access } from '../http/access.js';
import type { Principal } from '../wire/token-kinds.js';
import { HttpError, ok } from '../http/envelope.js';
import { notFound } from '../core/leo-error.js';
import { okOf } from '../http/openapi.js';
import {
  DeliveryEntry,
  PresenceState,
  RemovedSubscription,
  SubscriptionSummary,
  TestPushResult,
  VapidPublicKey,
} from '../wire/push.js';
import { AgentAddress } from '../wire/agent-address.js';
import { viewerOf, type PresenceBoard } from './presence-board.js';
import { NewSubscription, type SubscriptionScope, type SubscriptionStore } from './subscription-store.js';
import { entryOf, type DeliveryLog } from './delivery-log.js';
import type { DeliveryOutcome, SendOptions } from './dispatcher.js';
import type { PushPolicy } from './policy.js';
import { PushPrefs } from '../wire/push.js';
import type { TestPush } from './push-payload.js';

export const PresenceReport = z.strictObject({ viewing: z.boolean() });
export const PrefsBody = PushPrefs.strict();

const TEST_PUSH: TestPush = {
  kind: 'test',
  agent: '',
  title: 'Leo',
  body: 'Test push: notifications from Leo reach this device.',
};
/** A test push asked for on the settings screen goes out whatever the preferences and presence say. */
const alwaysPush: PushPolicy = () => ({ push: true, collapse_key: 'test', urgency: 'high', silent: false });

/**
 * Devices register where their pushes go; the VAPID public key is what a browser subscribes with. A client with a
 * thread on screen says so (and repeats it within the TTL) so the messages it is already showing do not push.
 */
const SubscriptionParams = z.object({ id: z.string().min(1).max(64) });
/** `name@host` too: a hub sends the pushes for its hosts' agents, so it keeps who looks at their threads. */
const AgentParams = z.object({ agent: AgentAddress });

/** A device sees and removes its own subscriptions; the operator and the socket all of them. */
function scopeOf(p: Principal | null): SubscriptionScope {
  return p?.kind === 'device' ? { tokenId: p.id } : 'all';
}

export const pushRoutes: FastifyPluginAsyncZod<{
  store: SubscriptionStore;
  presence: PresenceBoard;
  vapidPublicKey(): string;
  /** Why a webhook URL is refused (webhook-target.ts), or null. */
  webhookRefusal(url: string): Promise<string | null>;
  /** The same address rule for a Web Push endpoint, which a device chooses as freely. */
  endpointRefusal(endpoint: string): Promise<string | null>;
  /** The dispatcher's send, awaited by the test push. */
  send(record: TestPush, opts: SendOptions): Promise<DeliveryOutcome[]>;
  deliveries: DeliveryLog;
  now(): string;
}> = async (app, { store, presence, vapidPublicKey, webhookRefusal, endpointRefusal, send, deliveries, now }) => {
  const own = (p: Principal | null) => new Set(store.summaries(scopeOf(p)).map((s) => s.id));
  const opts = { config: { access: Access.operatorOrDevice } };
  const answering = <S extends object = object>(status: 200 | 201, data: z.ZodType, schema = {} as S) => ({
    ...opts,
    schema: { ...schema, response: { [status]: okOf(data) } },
  });
  app.get('/api/v1/push/vapid-public-key', answering(200, VapidPublicKey), async () =>
    ok({ public_key: vapidPublicKey() }),
  );
  // A device's subscription is registered in its own name and belongs to its token; `device` in the body is then
  // only accepted when it is that name. The operator's and the socket's keep `device` as a free label.
  app.post(
    '/api/v1/push/subscriptions',
    answering(201, SubscriptionSummary, { body: NewSubscription }),
    async (req, reply) => {
      const sub = req.body;
      const refused = sub.provider === 'webhook' ? await webhookRefusal(sub.url) : await endpointRefusal(sub.endpoint);
      if (refused)
        throw new HttpError(400, refused, 'webhook_target_refused', {
          field: sub.provider === 'webhook' ? 'url' : 'endpoint',
        });
      const p = req.principal;
      if (p?.kind !== 'device') return reply.code(201).send(ok(store.add(sub, null)));
      if (sub.device !== undefined && sub.device !== p.name)
        throw new HttpError(
          403,
          `a device registers push subscriptions in its own name ("${p.name}") only`,
          'forbidden',
        );
      return reply.code(201).send(ok(store.add({ ...sub, device: p.name }, p.id)));
    },
  );
  app.get('/api/v1/push/subscriptions', answering(200, z.array(SubscriptionSummary)), async (req) =>
    ok(store.summaries(scopeOf(req.principal))),
  );
  // Another device's id answers 404 like an unknown one: a device cannot even learn that it exists.
  app.delete(
    '/api/v1/push/subscriptions/:id',
    answering(200, RemovedSubscription, { params: SubscriptionParams }),
    async (req) => {
      const { id } = req.params;
      if (!store.remove(id, scopeOf(req.principal))) throw notFound(`no push subscription ${id}`);
      deliveries.forget(id);
      return ok({ id, removed: true });
    },
  );
  app.put(
    '/api/v1/push/subscriptions/:id/prefs',
    answering(200, SubscriptionSummary, { params: SubscriptionParams, body: PrefsBody }),
    async (req) => {
      const { id } = req.params;
      const updated = store.setPrefs(id, req.body, scopeOf(req.principal));
      if (!updated) throw notFound(`no push subscription ${id}`);
      return ok(updated);
    },
  );
  // To the caller's own subscriptions only (a device's; the operator's reach all): the answer says what happened.
  app.post('/api/v1/push/test', answering(200, TestPushResult), async (req) => {
    const ids = own(req.principal);
    const outcomes = await send(TEST_PUSH, { only: (s) => ids.has(s.id), policy: alwaysPush });
    return ok({ deliveries: outcomes.map((o) => entryOf(TEST_PUSH, o, now())) });
  });
  app.get('/api/v1/push/deliveries', answering(200, z.array(DeliveryEntry)), async (req) =>
    ok(deliveries.of(own(req.principal))),
  );
  app.put(
    '/api/v1/chat/:agent/presence',
    answering(200, PresenceState, { params: AgentParams, body: PresenceReport }),
    async (req) => {
      const { agent } = req.params;
      return ok({ agent, ...presence.report(agent, viewerOf(req.principal), req.body.viewing) });
    },
  );
};
