import { z } from 'zod';
import type { Clock } from '../core/clock.js';
import { newId } from '../core/ids.js';
import { rfc3339 } from '../core/time.js';
import type { Database } from '../store/database.js';
import { Subscription, WebPushSubscription, WebhookSubscription } from './provider.js';

/** What a device registers: a subscription without the id the daemon assigns. */
export const NewSubscription = z.discriminatedUnion('provider', [
  WebPushSubscription.omit({ id: true }).strict(),
  WebhookSubscription.omit({ id: true }).strict(),
]);
export type NewSubscription = z.infer<typeof NewSubscription>;

/** The listing shape: which device, which provider, its preferences; never an endpoint, key, URL or secret. */
export const SubscriptionSummary = z.object({
  id: z.string(),
  provider: z.enum(['web-push', 'webhook']),
  device: z.string().optional(),
  prefs: z.unknown().optional(),
  created_at: z.string(),
});
export type SubscriptionSummary = z.infer<typeof SubscriptionSummary>;

/** Push subscriptions in chat.db; the dispatcher lists them and removes the ones a push service reports gone. */
export class SubscriptionStore {
  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
  ) {}

  add(sub: NewSubscription): SubscriptionSummary {
    const id = newId(this.clock.now());
    const created_at = rfc3339(this.clock.now());
    this.db
      .prepare('INSERT INTO push_subscriptions (id, provider, body, created_at) VALUES (?, ?, ?, ?)')
      .run(id, sub.provider, JSON.stringify({ ...sub, id }), created_at);
    return summary({ ...sub, id } as Subscription, created_at);
  }

  list(): Subscription[] {
    return this.rows().map((r) => Subscription.parse(JSON.parse(r.body)));
  }

  summaries(): SubscriptionSummary[] {
    return this.rows().map((r) => summary(Subscription.parse(JSON.parse(r.body)), r.created_at));
  }

  remove(id: string): boolean {
    return this.db.prepare('DELETE FROM push_subscriptions WHERE id = ?').run(id).changes > 0;
  }

  private rows(): { body: string; created_at: string }[] {
    return this.db.prepare('SELECT body, created_at FROM push_subscriptions ORDER BY id').all() as {
      body: string;
      created_at: string;
    }[];
  }
}

function summary(s: Subscription, created_at: string): SubscriptionSummary {
  return {
    id: s.id,
    provider: s.provider,
    ...(s.device ? { device: s.device } : {}),
    ...(s.prefs ? { prefs: s.prefs } : {}),
    created_at,
  };
}
