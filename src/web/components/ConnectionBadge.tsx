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
