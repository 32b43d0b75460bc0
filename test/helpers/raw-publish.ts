import type { EventBus } from '../../src/events/bus.js';
import type { EventType } from '../../src/wire/event-types.js';

/**
 * Publishes data the event table does not describe (a marker, a counter, a blob), for tests of the bus's and the
 * streams' own mechanics, which read only the type, the seq and the marker. The compiler holds every daemon publish
 * site to the table; a call here says the test means not to be.
 */
export function publishRaw(bus: EventBus, type: EventType, fields: Record<string, unknown> = {}): void {
  bus.publish(type, fields as never);
}
