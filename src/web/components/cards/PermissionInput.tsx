import type { Message } from '../../../wire/message.js';
import { needsWholeView, preview, showInvisibles } from '../../../wire/visible-text.js';

type Permission = NonNullable<Message['permission']>;

/** Whether the prompt's Allow waits until its whole input is open: the first view cuts it or it holds invisibles. */
export const allowWaitsForWhole = (p: Permission): boolean =>
  p.full_input !== undefined && needsWholeView(p.full_input);

/** Chat kept only the start of this input: it takes a deny, never an Allow (the daemon refuses one too). */
const tooLong = (p: Permission): boolean => (p.input_cut ?? 0) > 0;

/**
 * What a permission prompt asks to run: its tool and input in monospace, invisible characters drawn as code points,
 * a long input cut with a count of what is hidden until the person opens all of it (issue 28). A prompt stored before
 * Leo kept the whole input shows its summary.
 */
export function PermissionInput({ p, whole, onOpen }: { p: Permission; whole: boolean; onOpen(): void }) {
  if (p.full_input === undefined)
    return (
      <p class="permission">
        <strong>{p.tool}</strong> <code>{p.summary}</code>
      </p>
    );
  const first = preview(p.full_input);
  const open = whole || !allowWaitsForWhole(p);
  return (
    <div class="permission">
      <strong>{p.tool}</strong>
      <pre class="permission-input">{open ? showInvisibles(p.full_input) : first.text}</pre>
      {open && tooLong(p) && <p class="hint cut">… {p.input_cut} more characters Leo did not keep</p>}
      {!open && first.hidden > 0 && (
        <p class="hint cut">
          … {first.hidden} more {first.hidden === 1 ? 'character' : 'characters'}
        </p>
      )}
      {!open && (
        <button type="button" class="link show-all" onClick={onOpen}>
          Show all of it
        </button>
      )}
    </div>
  );
}

/** Why Allow is not offered yet, in a sentence; null once nothing stands in its way. */
export function allowWithheldReason(p: Permission, whole: boolean): string | null {
  if (tooLong(p))
    return "Too long to approve from here: Leo kept only its start. Deny it, or answer it in the agent's terminal.";
  if (whole || !allowWaitsForWhole(p)) return null;
  const first = preview(p.full_input!);
  const why = [
    first.hidden > 0 ? 'part of it is hidden' : '',
    first.invisibles ? 'it holds invisible characters (drawn as ⟨U+…⟩)' : '',
  ].filter(Boolean);
  return `Allow appears once you have opened all of it: ${why.join(' and ')}.`;
}
