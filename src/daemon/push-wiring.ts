import path from 'node:path';
import type https from 'node:https';
import type { FastifyInstance } from 'fastify';
import type { Config } from '../config/schema.js';
import type { Clock } from '../core/clock.js';
import type { LeoPaths } from '../core/home.js';
import type { Logger } from '../core/logger.js';
import { rfc3339 } from '../core/time.js';
import type { EventBus } from '../events/bus.js';
import type { Database } from '../store/database.js';
import { DeliveryLog, entryOf } from '../push/delivery-log.js';
import { PushDispatcher } from '../push/dispatcher.js';
import { MessagePushes } from '../push/message-pushes.js';
import type { PresenceBoard } from '../push/presence-board.js';
import { pushRoutes } from '../push/push-routes.js';
import { SubscriptionStore } from '../push/subscription-store.js';
import { WebPushProvider } from '../push/web-push-provider.js';
import { WebhookProvider } from '../push/webhook-provider.js';
import { pushEndpointRefusal, webhookTargetRefusal } from '../push/webhook-target.js';
import type { Domain } from './domain.js';

export interface PushWiringDeps {
  app: FastifyInstance;
  db: Database;
  bus: EventBus;
  clock: Clock;
  logger: Logger;
  paths: LeoPaths;
  /** Built with the token routes, which clear a revoked device's reports. */
  presence: PresenceBoard;
  /** A TLS agent for push services (tests trust their stand-in push service's certificate with one). */
  pushAgent?: https.Agent;
  config(): Config;
}

/** Builds push notifications (Web Push and webhooks) and registers /api/v1/push; chat hands it what to push. */
export async function wirePush(d: PushWiringDeps): Promise<Domain & { pushes: MessagePushes }> {
  const subscriptions = new SubscriptionStore(d.db, d.clock);
  const endpointRefusal = (endpoint: string) => pushEndpointRefusal(endpoint, d.config().chat.webhook_allowed_hosts);
  const webPush = await WebPushProvider.open({
    keyPath: path.join(d.paths.stateDir, 'vapid.json'),
    subject: d.config().chat.vapid_subject,
    ...(d.pushAgent ? { agent: d.pushAgent } : {}),
    refusal: endpointRefusal,
  });
  const deliveries = new DeliveryLog();
  const webhookRefusal = (url: string) => webhookTargetRefusal(url, d.config().chat.webhook_allowed_hosts);
  const dispatcher = new PushDispatcher({
    providers: [webPush, new WebhookProvider({ refusal: webhookRefusal })],
    subscriptions: {
      list: () => subscriptions.list(),
      remove: (id) => void subscriptions.remove(id),
      has: (id) => subscriptions.has(id),
    },
    presence: d.presence,
    logger: d.logger,
    now: () => d.clock.now(),
    onOutcome: (record, outcome) => deliveries.record(entryOf(record, outcome, rfc3339(d.clock.now()))),
  });
  const pushes = new MessagePushes(dispatcher);
  pushes.follow(d.bus, () => d.config().chat.enabled);
  await d.app.register(pushRoutes, {
    store: subscriptions,
    presence: d.presence,
    vapidPublicKey: () => webPush.publicKey(),
    webhookRefusal,
    endpointRefusal,
    send: (record, opts) => dispatcher.send(record, opts),
    deliveries,
    now: () => rfc3339(d.clock.now()),
  });
  // Chat's stop waits for the pushes it sent (MessagePushes.idle), after its own deliveries drained.
  return { pushes };
}
