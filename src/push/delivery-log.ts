import type { DeliveryEntry } from '../wire/push.js';
import type { DeliveryOutcome } from './dispatcher.js';
import type { PushRecord } from './push-payload.js';

/**
 * What became of each push per subscription, for "why didn't I get a push?" (GET /api/v1/push/deliveries). Kept in
 * memory, the last DELIVERY_LOG_SIZE per subscription: it explains the recent past, it is not an audit trail, and a
 * restart starting it empty costs nothing. No message text is kept, only the title (the agent) and ids.
 *
 * Outcomes: `sent` (the push service took it), `suppressed` (the policy kept it back: `mode` — the preferences —,
 * `viewing` — a device had the thread on screen —, `quiet_hours`), `failed` (with the push service's answer), `gone`
 * (the push service said the subscription is over; it was removed), `dropped` (too many deliveries pending).
 */

export const DELIVERY_LOG_SIZE = 100;

export class DeliveryLog {
  private readonly bySubscription = new Map<string, DeliveryEntry[]>();

  constructor(private readonly size = DELIVERY_LOG_SIZE) {}

  record(entry: DeliveryEntry): void {
    const list = this.bySubscription.get(entry.subscription) ?? [];
    list.push(entry);
    if (list.length > this.size) list.splice(0, list.length - this.size);
    this.bySubscription.set(entry.subscription, list);
  }

  /** The entries of these subscriptions, newest first. */
  of(subscriptions: Iterable<string>): DeliveryEntry[] {
    const out: DeliveryEntry[] = [];
    for (const id of subscriptions) out.push(...(this.bySubscription.get(id) ?? []).toReversed());
    // Stable: entries of one instant keep their newest-first order.
    return out.sort((a, b) => (a.at < b.at ? 1 : a.at > b.at ? -1 : 0));
  }

  forget(subscription: string): void {
    this.bySubscription.delete(subscription);
  }
}

/** A dispatcher outcome as the log keeps it. */
export function entryOf(record: PushRecord, outcome: DeliveryOutcome, at: string): DeliveryEntry {
  const base = {
    at,
    subscription: outcome.subscription,
    kind: record.kind,
    agent: record.agent,
    title: record.title,
    ...(record.message_id ? { message_id: record.message_id } : {}),
  };
  switch (outcome.status) {
    case 'ok':
      return { ...base, outcome: 'sent' };
    case 'skipped':
      return { ...base, outcome: 'suppressed', reason: outcome.reason };
    case 'dropped':
      return { ...base, outcome: 'dropped' };
    default:
      return { ...base, outcome: outcome.status, ...(outcome.detail ? { detail: outcome.detail } : {}) };
  }
}
