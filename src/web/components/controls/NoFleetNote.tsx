import { caller } from '../../stores/caller.js';

/**
 * Said where fleet controls would be on a device without the fleet scope: what is missing and how the owner grants it,
 * so a hidden control reads as a choice, not a bug. Nothing until the daemon has said what this device may do.
 */
export function NoFleetNote({ what }: { what: string }) {
  const me = caller.value;
  if (!me) return null;
  return (
    <p class="hint no-fleet" data-no-fleet>
      {what} needs the fleet scope, which this device ({me.name ?? me.kind}) was not given. The owner grants it in Leo
      Web's device list on their own phone, or with <code>leo device fleet "{me.name ?? '<name>'}" on</code>.
    </p>
  );
}
