import type { Clock } from '../core/clock.js';
import { rfc3339 } from '../core/time.js';
import { sseFrame, type BusEvent } from './event.js';
import { audienceOf, type EventType } from './event-types.js';

export interface Subscriber {
  /** Called synchronously inside publish, in seq order. Must not throw and must not block. */
  deliver(event: BusEvent): void;
}

export interface Subscription {
  /** seq of the last event published before this subscriber was registered: its first event is startSeq + 1. */
  readonly startSeq: number;
  readonly startAt: string;
  unsubscribe(): void;
}

export interface BusStats {
  subscribers: number;
  published: number;
}

/**
 * The in-process event bus behind /api/v1/events. Stamping and fan-out happen in one synchronous call, which on
 * Node's single thread is the critical section, and subscribe() reads the current seq in the same turn it registers.
 * A publish made from inside a delivery (a subscriber reacting to an event) is stamped at once but delivered after
 * the current fan-out finishes, so every subscriber still sees strict seq order.
 */
export class EventBus {
  private seq = 0;
  private readonly subscribers = new Set<Subscriber>();
  private readonly pending: BusEvent[] = [];
  private delivering = false;

  constructor(private readonly clock: Clock) {}

  publish(type: EventType, fields: Record<string, unknown> = {}): BusEvent {
    const seq = ++this.seq;
    const at = rfc3339(this.clock.now());
    const data = { seq, at, ...fields };
    const event: BusEvent = { type, audience: audienceOf(type), seq, at, data, frame: sseFrame(type, data) };
    this.pending.push(event);
    if (this.delivering) return event;
    this.delivering = true;
    try {
      for (let next = this.pending.shift(); next; next = this.pending.shift())
        for (const s of this.subscribers) s.deliver(next);
    } finally {
      this.delivering = false;
    }
    return event;
  }

  subscribe(subscriber: Subscriber): Subscription {
    this.subscribers.add(subscriber);
    return {
      startSeq: this.seq,
      startAt: rfc3339(this.clock.now()),
      unsubscribe: () => void this.subscribers.delete(subscriber),
    };
  }

  stats(): BusStats {
    return { subscribers: this.subscribers.size, published: this.seq };
  }
}
