import { EVENT_PAYLOADS, HelloEvent, type EventData } from '../../wire/events.js';
import type { EventType } from '../../wire/event-types.js';

/**
 * One event of the stream as the app applies it: the hello, or a type of the daemon's event table with that type's
 * data (wire/events.ts), so the app declares no event shape of its own.
 */
export type FleetEvent =
  { type: 'hello'; data: HelloEvent } | { [T in EventType]: { type: T; data: EventData<T> } }[EventType];

/** An event as the stream named it, or null for a type the app does not know (the API only ever grows) or bad data. */
export function parseEvent(type: string, data: unknown): FleetEvent | null {
  const known = type === 'hello' || Object.hasOwn(EVENT_PAYLOADS, type);
  const schema = type === 'hello' ? HelloEvent : EVENT_PAYLOADS[type as EventType];
  if (!known) return null;
  const parsed = schema.safeParse(data);
  // The table keys each type to its schema, which the union's members restate.
  return parsed.success ? ({ type, data: parsed.data } as FleetEvent) : null;
}
