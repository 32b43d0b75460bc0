import type { Clock } from '../core/clock.js';
import { rfc3339 } from '../core/time.js';
import { sseFrame, type BusEvent } from './event.js';
import type { EventFields } from '../wire/events.js';
import { AUDIENCES, audienceOf, receives, type EventAudience, type EventType } from '../wire/event-types.js';

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
 *
 * Each audience numbers its own stream: an event takes the next seq of every audience that receives it, so a stream
 * that skips the events outside its audience still sees no gap after its hello (observability-api.md), and the
 * `seq` of /api/v1/state read by the same principal (lastSeq) is that stream's.
 */
export class EventBus {
  private readonly seqs: Record<EventAudience, number> = { fleet: 0, chat: 0 };
  private readonly subscribers: Record<EventAudience, Set<Subscriber>> = { fleet: new Set(), chat: new Set() };
  private readonly pending: { reader: EventAudience; event: BusEvent }[] = [];
  private delivering = false;

  constructor(private readonly clock: Clock) {}

  publish<T extends EventType>(type: T, fields: EventFields<T>): void {
    const audience = audienceOf(type);
    const at = rfc3339(this.clock.now());
    for (const reader of AUDIENCES) {
      if (!receives(reader, audience)) continue;
      const seq = ++this.seqs[reader];
      // The count moves either way; the frame is built only for an audience someone listens in.
      if (this.subscribers[reader].size === 0) continue;
      const data = { seq, at, ...fields };
      this.pending.push({ reader, event: { type, audience, seq, at, data, frame: sseFrame(type, data) } });
    }
    if (this.delivering) return;
    this.delivering = true;
    try {
      for (let next = this.pending.shift(); next; next = this.pending.shift())
        for (const s of this.subscribers[next.reader]) s.deliver(next.event);
    } finally {
      this.delivering = false;
    }
  }

  /**
   * Registers a subscriber in `audience`: it receives what that audience receives, numbered in its sequence. The
   * daemon's own subscribers take the default, `chat`, which receives every event.
   */
  subscribe(subscriber: Subscriber, audience: EventAudience = 'chat'): Subscription {
    this.subscribers[audience].add(subscriber);
    return {
      startSeq: this.seqs[audience],
      startAt: rfc3339(this.clock.now()),
      unsubscribe: () => void this.subscribers[audience].delete(subscriber),
    };
  }

  /** The seq of the last event `audience` received: where a snapshot taken now stands in that audience's stream. */
  lastSeq(audience: EventAudience): number {
    return this.seqs[audience];
  }

  stats(): BusStats {
    // `chat` receives every event, so its count is the number published.
    return { subscribers: this.subscribers.fleet.size + this.subscribers.chat.size, published: this.seqs.chat };
  }
}
