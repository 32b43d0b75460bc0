import type { EventAudience } from '../wire/event-types.js';

/**
 * A published event as one audience receives it. Stamped once per audience by the bus, with that audience's `seq`;
 * `frame` is the SSE text, serialized once per audience and shared by its subscribers, so fan-out costs one
 * JSON.stringify per event and audience, not one per subscriber. `audience` (from the event type) is who may
 * receive it (event-types.ts).
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
