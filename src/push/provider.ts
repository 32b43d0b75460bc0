import { z } from 'zod';
import { PushUrgency } from './policy.js';
import { PushPrefs } from '../wire/push.js';
import { ChatPush, NeedsInputPush, TestPush } from './push-payload.js';

/**
 * The seam between the dispatcher and a push transport, and the shapes both sides share: a device's subscription
 * (stored by whoever registers devices) and the payload a device receives (a push record plus the policy's delivery
 * hints, so a bridge such as an APNs relay behind a webhook can honour them too).
 */

const subscriptionBase = {
  id: z.string().min(1),
  /** A label for people and logs; endpoints and secrets are never logged. */
  device: z.string().optional(),
  prefs: PushPrefs.optional(),
};

/** A browser PushSubscription (its toJSON()); push services speak HTTPS only. */
export const WebPushSubscription = z.object({
  ...subscriptionBase,
  provider: z.literal('web-push'),
  endpoint: z.url({ protocol: /^https$/ }),
  keys: z.object({ p256dh: z.string().min(1), auth: z.string().min(1) }),
});
export type WebPushSubscription = z.infer<typeof WebPushSubscription>;

/** A receiver of signed JSON POSTs; plain http is allowed for a relay on the same host. */
export const WebhookSubscription = z.object({
  ...subscriptionBase,
  provider: z.literal('webhook'),
  url: z.url({ protocol: /^https?$/ }),
  /** HMAC-SHA256 key for X-Leo-Signature; long enough that it cannot be guessed. */
  secret: z.string().min(16),
});
export type WebhookSubscription = z.infer<typeof WebhookSubscription>;

export const Subscription = z.discriminatedUnion('provider', [WebPushSubscription, WebhookSubscription]);
export type Subscription = z.infer<typeof Subscription>;

const deliveryHints = {
  /** Same key, same notification: a later push replaces the earlier one (see policy.ts). */
  collapse_key: z.string(),
  urgency: PushUrgency,
  /** Show without sound (quiet hours). */
  silent: z.boolean(),
};

export const PushPayload = z.discriminatedUnion('kind', [
  ChatPush.extend(deliveryHints),
  NeedsInputPush.extend(deliveryHints),
  TestPush.extend(deliveryHints),
]);
export type PushPayload = z.infer<typeof PushPayload>;

export type PushResult =
  | { status: 'ok' }
  /** The subscription expired or was revoked: remove it. */
  | { status: 'gone'; detail: string }
  /** Transient: the same send may work later, no sooner than retryAfterMs when the receiver said so. */
  | { status: 'retry'; detail: string; retryAfterMs?: number }
  | { status: 'failed'; detail: string };

export interface PushProvider {
  /** The Subscription.provider value this provider serves. */
  readonly name: string;
  /** Never rejects: every failure is a PushResult. */
  send(sub: Subscription, payload: PushPayload): Promise<PushResult>;
}

/** Retry-After as delta-seconds or an HTTP date, in ms from now; undefined when absent or unreadable. */
export function parseRetryAfter(value: string | string[] | null | undefined, now = Date.now()): number | undefined {
  const v = Array.isArray(value) ? value[0] : value;
  if (v === undefined || v === null || v.trim() === '') return undefined;
  if (/^\d+$/.test(v.trim())) return Number(v.trim()) * 1000;
  const at = Date.parse(v);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

export function errorDetail(err: unknown): string {
  if (err instanceof Error) {
    const code = (err as { code?: unknown }).code;
    return typeof code === 'string' ? `${code}: ${err.message}` : err.message;
  }
  return String(err);
}
