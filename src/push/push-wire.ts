import { z } from 'zod';
import { PushPrefs } from './policy.js';

/**
 * The push routes' answers that Leo Web reads (imported by src/web/api/client.ts): zod only, no node imports.
 */

/** The listing shape: which device, which provider, its preferences; never an endpoint, key, URL or secret. */
export const SubscriptionSummary = z.object({
  id: z.string(),
  provider: z.enum(['web-push', 'webhook']),
  device: z.string().optional(),
  prefs: PushPrefs.optional(),
  created_at: z.string(),
});
export type SubscriptionSummary = z.infer<typeof SubscriptionSummary>;

export const DeliveryOutcomeName = z.enum(['sent', 'suppressed', 'failed', 'gone', 'dropped']);

export const DeliveryEntry = z.object({
  at: z.string(),
  subscription: z.string(),
  kind: z.enum(['chat', 'needs_input', 'test']),
  agent: z.string(),
  title: z.string(),
  message_id: z.string().optional(),
  outcome: DeliveryOutcomeName,
  /** Why it was suppressed: mode, viewing, quiet_hours, no_provider, removed. */
  reason: z.string().optional(),
  /** The push service's answer, for failed and gone. */
  detail: z.string().optional(),
});
export type DeliveryEntry = z.infer<typeof DeliveryEntry>;

/** GET /api/v1/push/vapid-public-key: what a browser subscribes with. */
export const VapidPublicKey = z.object({ public_key: z.string() });
export const RemovedSubscription = z.object({ id: z.string(), removed: z.literal(true) });
export const TestPushResult = z.object({ deliveries: z.array(DeliveryEntry) });
/** PUT /api/v1/chat/:agent/presence: the report as held, and how long until it lapses unless repeated. */
export const PresenceState = z.object({ agent: z.string(), viewing: z.boolean(), expires_in_ms: z.number() });
