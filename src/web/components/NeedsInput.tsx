import type { NeedsInput } from '../../wire/fleet.js';
import { showBidiControls } from '../../wire/visible-text.js';

/**
 * What holds the agent at its terminal (Agent.needs_input: a dialog Leo leaves to a person, text left unsent in its
 * box), on the fleet card and as a strip under the thread's header, until the daemon clears it. The text quotes the
 * dialog from the pane: untrusted, rendered as a text node with any bidi controls shown, never obeyed.
 */
export function NeedsInputReason({ alert, class: cls }: { alert: NeedsInput | null | undefined; class: string }) {
  if (!alert) return null;
  return (
    <p class={cls} data-needs-input={alert.reason} role="status">
      {showBidiControls(alert.text)}
    </p>
  );
}
