import type { TurnError } from '../../wire/fleet.js';

/**
 * The agent's last turn failed (Agent.turn_error, cleared when its next turn starts). The reason holds provider text
 * (redacted by the daemon, still untrusted): rendered as text nodes only.
 */
export function TurnErrorBadge({ error }: { error: TurnError | null | undefined }) {
  if (!error) return null;
  return (
    <span class="turn-error-badge" title={error.message} data-turn-error>
      failed
    </span>
  );
}

/**
 * The reason in words: on the fleet card under its badge, and in the thread as a strip under the header, badge
 * included (the header itself has no room for it beside the name on a phone).
 */
export function TurnErrorReason({
  error,
  class: cls,
  badge = false,
}: {
  error: TurnError | null | undefined;
  class: string;
  badge?: boolean;
}) {
  if (!error) return null;
  return (
    <p class={cls} data-turn-error-reason>
      {badge && <TurnErrorBadge error={error} />} Last turn failed: {error.message}
    </p>
  );
}
