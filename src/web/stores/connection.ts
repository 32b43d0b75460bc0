import { signal } from '@preact/signals';

/** The event stream's health, shown by the indicator: `live` only while the stream is open and applied. */
export type Connection = 'connecting' | 'live' | 'reconnecting' | 'offline';
export const connection = signal<Connection>('connecting');
/** When the next reconnect attempt is due (ms epoch), for the indicator's "retrying in" hint. */
export const retryAt = signal<number | null>(null);
