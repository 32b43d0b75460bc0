import type { EventAudience } from './event-types.js';

/**
 * A published event. Stamped once by the bus; `frame` is the SSE text, serialized once and shared by every
 * subscriber so fan-out costs one JSON.stringify per event, not one per subscriber. `audience` (from the event type)
 * is who may receive it: a subscriber outside it skips the frame, so filtering costs no serialization either.
 */
export interface BusEvent {
  readonly type: string;
  readonly audience: EventAudience;
  readonly seq: number;
  readonly at: string;
  readonly data: Readonly<Record<string, unknown>>;
  readonly frame: string;
}

export function sseFrame(type: string, data: unknown): string {
  // JSON.stringify never emits a raw newline, so one data: line always holds the whole payload.
  return `event: ${type}\ndata: ${JSON.stringify(data)}\n\n`;
}
