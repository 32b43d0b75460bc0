import type { Agent } from '../../../wire/fleet.js';
import { hostNames, movedAway } from '../../stores/move-view.js';
import { threadHref } from '../../stores/route.js';

/** A dormant record's thread, in the composer's place: where the agent went, and a link to it there. */
export function MovedNote({ agent }: { agent: Agent }) {
  const moved = movedAway(agent, hostNames.value);
  if (!moved) return null;
  return (
    <p class="no-agent" data-moved-to={moved.address}>
      <span>Moved to {moved.machine}.</span>
      <a class="button-link" href={threadHref(moved.address)}>
        Open {moved.address}
      </a>
    </p>
  );
}
