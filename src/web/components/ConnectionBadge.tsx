import { connection } from '../stores/connection.js';

const LABEL = { connecting: 'Connecting…', live: 'Live', reconnecting: 'Reconnecting…', offline: 'Offline' } as const;

/** The stream's state, always on screen: the fleet is only current while this says Live. */
export function ConnectionBadge() {
  const state = connection.value;
  return (
    <span class={`conn conn-${state}`} role="status" aria-live="polite" data-connection={state}>
      <span class="conn-dot" aria-hidden="true" />
      {LABEL[state]}
    </span>
  );
}

/**
 * Under a screen's header while offline: what shows is what the app last knew (stores/last-known.ts), and a send
 * waits in the outbox. The badge alone is a dot on a phone.
 */
export function OfflineNote() {
  if (connection.value !== 'offline') return null;
  return (
    <p class="offline-note" data-offline-note>
      Offline: showing what Leo last sent. Messages wait here and go when you are back online.
    </p>
  );
}
