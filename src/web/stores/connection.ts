import { signal } from '@preact/signals';

/** The event stream's health, shown by the indicator: `live` only while the stream is open and applied. */
export type Connection = 'connecting' | 'live' | 'reconnecting' | 'offline';
export const connection = signal<Connection>('connecting');
