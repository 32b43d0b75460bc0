import { z } from 'zod';
import { AgentName } from './names.js';

/**
 * The push routes' answers that Leo Web reads (imported by src/web/api/client.ts): zod only, no node imports.
 */

/** How a device wants its pushes; `decidePush` in src/push/policy.ts reads them. */
export const PushMode = z.enum(['all', 'asks_only', 'none']);
export type PushMode = z.infer<typeof PushMode>;

const HHMM = z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'expected HH:MM (24-hour)');

export const QuietHours = z.object({
  start: HHMM,
  end: HHMM,
  timezone: z
    .string()
    .refine((tz) => isTimeZone(tz), 'unknown IANA time zone')
    .optional(),
});
export type QuietHours = z.infer<typeof QuietHours>;

export const PushPrefs = z.object({
  mode: PushMode.default('all'),
  /** Per-agent modes, overriding `mode` for the agents named. */
  agents: z.record(AgentName, PushMode).optional(),
  quiet_hours: QuietHours.optional(),
});
export type PushPrefs = z.infer<typeof PushPrefs>;

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

function isTimeZone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}
