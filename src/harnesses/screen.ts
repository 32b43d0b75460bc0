// What a harness's terminal shows, read from a pane capture: the facts delivery needs before it types (is the input
// box there and empty, or is a dialog up that keystrokes would answer?) and after (did Enter take the text?).
// Pure: the capture is untrusted text from the agent's terminal, and nothing here touches tmux.
import type { Harness } from '../config/schema.js';
import { adapterOf } from './index.js';
import { paneLines } from './pane-lines.js';

export { paneLines };

export type Screen =
  /**
   * The input box is showing; `text` is what it holds, '' when empty (a placeholder hint counts as empty).
   * `replacedOnSubmit`: the box is on a start screen that a submit swaps for another view (opencode's home screen gives
   * way to its session view). Right after Enter that screen still shows, with its box emptied, for up to half a second
   * under load: that box is not the next prompt, and text typed into it then is lost.
   */
  | { kind: 'input'; text: string; replacedOnSubmit?: true }
  /**
   * A menu or question the harness waits on: typed text or an Enter would answer it. `answer` is set for the few
   * dialogs Leo answers itself, because Leo already gave that answer through the harness's config: the next key to
   * press on this screen (the highlight moves a step per look, and Enter is pressed only on the answer).
   * `permission` is set on a tool's permission dialog (the harness asks before it runs a command or edits a file): the
   * keys that allow and that deny it, for an answer given in Leo Chat that no hook can hand over.
   */
  | { kind: 'dialog'; question: string; options: string[]; answer?: string[]; permission?: PermissionKeys }
  /** Nothing recognisable yet: the harness is still drawing. */
  | { kind: 'starting' }
  /** The harness exited; `detail` is its last words. */
  | { kind: 'exited'; detail: string };

/** The keys that answer a tool's permission dialog (each ends with its Enter). */
export interface PermissionKeys {
  allow: string[];
  deny: string[];
}

export type ScreenReader = (pane: string) => Screen;

/** tmux's last line for a pane whose program ended (remain-on-exit). */
const DEAD_PANE = /^Pane is dead \(status (\d+)[^)]*\)\s*$/;

/** The last meaningful lines of an exited pane, for a message that says why the program stopped. */
export function exitDetail(lines: readonly string[]): string {
  const said = lines.filter((l) => l.trim() !== '' && !DEAD_PANE.test(l)).slice(-3);
  const status = DEAD_PANE.exec(lines[lines.length - 1] ?? '')?.[1];
  const words = said.map((l) => l.trim()).join(' / ');
  return [status === undefined ? '' : `exit ${status}`, words].filter(Boolean).join(': ');
}

/**
 * The harness's screen reader, for the harnesses Leo knows the screens of. A shell template runs any program, whose
 * screen cannot be read: it gets none, and delivery falls back to watching the pane change.
 */
export function screenReader(harness: Harness): ScreenReader | null {
  const read = adapterOf(harness)?.screen;
  if (!read) return null;
  return (pane) => {
    const lines = paneLines(pane);
    if (DEAD_PANE.test(lines[lines.length - 1] ?? '')) return { kind: 'exited', detail: exitDetail(lines) };
    return read(pane);
  };
}
