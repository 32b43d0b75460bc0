import { z } from 'zod';
import type { Clock } from '../core/clock.js';
import { newId } from '../core/ids.js';
import { rfc3339 } from '../core/time.js';
import type { Database } from '../store/database.js';
import type { PushPrefs } from '../wire/push.js';
import type { SubscriptionSummary } from '../wire/push.js';
import { Subscription, WebPushSubscription, WebhookSubscription } from './provider.js';

/** What a device registers: a subscription without the id the daemon assigns. */
export const NewSubscription = z.discriminatedUnion('provider', [
  WebPushSubscription.omit({ id: true }).strict(),
  WebhookSubscription.omit({ id: true }).strict(),
]);
export type NewSubscription = z.infer<typeof NewSubscription>;

/**
 * Whose subscriptions a call sees: a paired device's token id (its own only), or `all` for the operator and the
 * socket. A subscription a device registers is that token's, and the database deletes it with the token.
 */
export type SubscriptionScope = { tokenId: string } | 'all';

/** Push subscriptions in chat.db; the dispatcher lists them and removes the ones a push service reports gone. */
export class SubscriptionStore {
  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
  ) {}

  /** `owner` is the registering device's token id, or null for the operator and the socket. */
  add(sub: NewSubscription, owner: string | null): SubscriptionSummary {
    const id = newId(this.clock.now());
    const created_at = rfc3339(this.clock.now());
    this.db
      .prepare('INSERT INTO push_subscriptions (id, provider, body, created_at, token_id) VALUES (?, ?, ?, ?, ?)')
      .run(id, sub.provider, JSON.stringify({ ...sub, id }), created_at, owner);
    return summary({ ...sub, id } as Subscription, created_at);
  }

  /** Every subscription: what the dispatcher sends to. */
  list(): Subscription[] {
    return this.rows('all').map((r) => Subscription.parse(JSON.parse(r.body)));
  }

  summaries(scope: SubscriptionScope): SubscriptionSummary[] {
    return this.rows(scope).map((r) => summary(Subscription.parse(JSON.parse(r.body)), r.created_at));
  }

  remove(id: string, scope: SubscriptionScope = 'all'): boolean {
    const run =
      scope === 'all'
        ? this.db.prepare('DELETE FROM push_subscriptions WHERE id = ?').run(id)
        : this.db.prepare('DELETE FROM push_subscriptions WHERE id = ? AND token_id = ?').run(id, scope.tokenId);
    return run.changes > 0;
  }

  /** Replaces one subscription's preferences (within `scope`); null when there is no such subscription there. */
  setPrefs(id: string, prefs: PushPrefs, scope: SubscriptionScope): SubscriptionSummary | null {
    const row = (
      scope === 'all'
        ? this.db.prepare('SELECT body, created_at FROM push_subscriptions WHERE id = ?').get(id)
        : this.db
            .prepare('SELECT body, created_at FROM push_subscriptions WHERE id = ? AND token_id = ?')
            .get(id, scope.tokenId)
    ) as { body: string; created_at: string } | undefined;
    if (!row) return null;
    const sub = Subscription.parse({ ...JSON.parse(row.body), prefs });
    this.db.prepare('UPDATE push_subscriptions SET body = ? WHERE id = ?').run(JSON.stringify(sub), id);
    return summary(sub, row.created_at);
  }

  has(id: string): boolean {
    return this.db.prepare('SELECT 1 FROM push_subscriptions WHERE id = ?').get(id) !== undefined;
  }

  private rows(scope: SubscriptionScope): { body: string; created_at: string }[] {
    const rows =
      scope === 'all'
        ? this.db.prepare('SELECT body, created_at FROM push_subscriptions ORDER BY id').all()
        : this.db
            .prepare('SELECT body, created_at FROM push_subscriptions WHERE token_id = ? ORDER BY id')
            .all(scope.tokenId);
    return rows as { body: string; created_at: string }[];
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
