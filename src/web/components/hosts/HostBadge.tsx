import { useState } from 'preact/hooks';
import type { HostEntry } from '../../../wire/host.js';
import { seenAt } from '../../stores/hosts.js';

/**
 * A followed host's status: online, stale with when it was last heard, offline with the hub's reason a tap away (and
 * in the title). The reason is the host's or the network's text: shown as text only.
 */
export function HostBadge({ host }: { host: HostEntry }) {
  const [open, setOpen] = useState(false);
  const seen = host.last_seen ? `last seen ${seenAt(host.last_seen)}` : 'never reached';
  const words = host.status === 'online' ? 'online' : `${host.status} · ${seen}`;
  const why = host.status === 'online' ? undefined : host.error;
  return (
    <span class="host-status-wrap">
      {why ? (
        <button
          type="button"
          class={`host-badge host-${host.status}`}
          data-host-status={host.status}
          title={why}
          aria-expanded={open}
          onClick={() => setOpen(!open)}
        >
          {words}
        </button>
      ) : (
        <span class={`host-badge host-${host.status}`} data-host-status={host.status}>
          {words}
        </span>
      )}
      {open && why && (
        <span class="host-error" role="note" data-host-error>
          {why}
        </span>
      )}
    </span>
  );
}
