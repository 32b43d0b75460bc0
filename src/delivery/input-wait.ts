import { setTimeout as sleep } from 'node:timers/promises';
import type { NeedsInputHold } from '../wire/fleet.js';
import type { Screen } from '../harnesses/screen.js';
import { DeliveryTimeout } from './deliverer.js';
import { DialogAnswers } from './dialog-answers.js';

export interface InputWait {
  agent: string;
  timeoutMs: number;
  /** Posts a note in the agent's thread. */
  note(text: string): void;
  /** Presses keys in the agent's pane: the answer to a dialog Leo answers itself. */
  press(keys: readonly string[]): Promise<void>;
  /**
   * What the permission prompt or questions card open in the agent's thread asks, or null. Its terminal shows the
   * matching dialog then, which any key Leo pressed could answer: answering it is chat's and the terminal's right.
   */
  openPrompt(): string | null;
  /**
   * Raises the agent's needs_input alert with what holds the message (a dialog Leo leaves to a person, text left in
   * the box), or clears it (null): the screen let the message in, a card asks instead, or the wait is over.
   */
  held(hold: NeedsInputHold | null): void;
}

/** How often the screen is read while waiting: quick enough that a message sent at spawn goes in about when it could. */
export const INPUT_POLL_MS = 250;
/** How long a freshly drawn input box is left before typing into it. */
const JUST_DRAWN_SETTLE_MS = 500;
/** A dialog must hold this long before the thread hears of it: a redraw caught half-way is not a dialog. */
const DIALOG_SETTLE_MS = 1_000;
/** Text someone is typing at the terminal: after this long the thread is told why its message waits. */
const BUSY_BOX_NOTE_MS = 3_000;
/** A harness that draws nothing recognisable for this long gets a note with what the pane shows. */
const SLOW_START_NOTE_MS = 20_000;
/** How much of a dialog's question and options the alert quotes: a lock screen shows a few lines. */
const ALERT_QUESTION_CHARS = 200;
/** How many looks a paste may take to show in the input box (a busy TUI redraws late) before it counts as lost. */
const PASTE_SHOW_LOOKS = 10;

/**
 * Waits until the harness shows an empty input box, the only moment typing is safe: a dialog (workspace trust, a
 * tool's permission) would take the text and Enter as its answer, and text already in the box would be glued to the
 * message. While it waits it says in the thread what holds the message up, once per cause. Fails fast when the
 * harness exited, and after `timeoutMs` with what the screen showed last; time spent behind an open permission prompt
 * does not count (the prompt has a deadline of its own, and the message goes in once it is answered).
 *
 * With `typed`, it waits instead for the box to hold the text just pasted, the only moment Enter is safe: it returns
 * that screen, waits while a dialog covers the box, and fails when the text does not show after a few looks.
 */
export async function waitForInput(
  look: () => Promise<Screen>,
  w: InputWait,
  opts: { typed?: boolean } = {},
): Promise<Screen> {
  try {
    return await waitOn(look, w, opts);
  } finally {
    // Delivered, failed or timed out: nobody watches the screen any more, so nothing could clear the alert later.
    w.held(null);
  }
}

async function waitOn(look: () => Promise<Screen>, w: InputWait, opts: { typed?: boolean }): Promise<Screen> {
  let started = Date.now();
  const answers = new DialogAnswers(w.press);
  const hold = new HoldNotes(w);
  let since = started;
  let previous = '';
  let missing = 0;
  for (let looks = 0; ; looks++) {
    // Behind a prompt the deadline stands still, and the box that shows after it is a freshly drawn one.
    if (await waitWhilePromptOpen(w, hold))
      [started, since, previous, looks, missing] = [Date.now(), Date.now(), '', 1, 0];
    const s = await look();
    if (opts.typed && s.kind === 'input' && s.text !== '' && !w.openPrompt()) return s;
    if (!opts.typed && s.kind === 'input' && s.text === '' && !w.openPrompt()) {
      // A box that just appeared belongs to a TUI still wiring up its keys (opencode lost Enters then): give it a
      // moment. One that was already there when the message came is typed into at once.
      if (looks === 0 || previous === 'ready') return s;
      previous = 'ready';
      await sleep(JUST_DRAWN_SETTLE_MS);
      continue;
    }
    if (s.kind === 'exited')
      throw new Error(`the agent's program exited before it could take the message (${s.detail})`);
    if (opts.typed && s.kind !== 'dialog' && ++missing >= PASTE_SHOW_LOOKS)
      throw new Error(`the paste did not show in the agent's input box (${describe(s)})`);
    const key = JSON.stringify(s);
    if (key !== previous) since = Date.now();
    previous = key;
    const held = Date.now() - since;
    if (s.kind === 'input' && s.text === '') w.held(null);
    if (s.kind === 'dialog' && s.answer) {
      if (held >= DIALOG_SETTLE_MS) await answers.offer(s.question, s.answer);
    } else if (s.kind === 'dialog' && held >= DIALOG_SETTLE_MS) {
      const asking = `“${s.question}”` + (s.options.length ? ` (${s.options.join(' / ')})` : '');
      hold.once(
        `dialog ${s.question}`,
        `${w.agent}'s terminal is asking ${asking}. Leo typed nothing into it: answer it in the terminal, and the message waiting for it goes in then.`,
      );
      w.held({
        reason: 'dialog',
        text: `Its terminal is asking ${clip(asking, ALERT_QUESTION_CHARS)}. Answer it there; your message waits for it.`,
      });
    }
    if (!opts.typed && s.kind === 'input' && s.text !== '' && held >= BUSY_BOX_NOTE_MS) {
      hold.once(
        'busy box',
        `${w.agent}'s input box already holds text that was not sent (“${clip(s.text)}”); your message goes in once it is cleared.`,
      );
      // The alert reaches dashboards and lock screens: it says that text waits, never what it says.
      w.held({
        reason: 'unsent_text',
        text: 'Its input box holds text nobody sent. Send or clear it in the terminal; your message waits for it.',
      });
    }
    if (s.kind === 'starting' && Date.now() - started >= SLOW_START_NOTE_MS)
      hold.once(
        'slow start',
        `${w.agent} has not shown its input prompt after ${SLOW_START_NOTE_MS / 1000} s; still waiting.`,
      );
    if (Date.now() - started >= w.timeoutMs)
      throw new DeliveryTimeout(
        `${w.agent} was not ready for input within ${Math.round(w.timeoutMs / 1000)} s (${waitingOn(s)})`,
      );
    await sleep(INPUT_POLL_MS);
  }
}

/** Says each cause that holds a message up once per delivery. */
export class HoldNotes {
  private readonly noted = new Set<string>();

  constructor(private readonly w: Pick<InputWait, 'note'>) {}

  once(key: string, text: string): void {
    if (this.noted.has(key)) return;
    this.noted.add(key);
    this.w.note(text);
  }
}

/**
 * Waits, without a deadline, while a permission prompt or questions card is open in the agent's thread: its terminal
 * shows the dialog then, and a key pressed into it would answer it. Says so once. Returns whether it waited.
 */
export async function waitWhilePromptOpen(w: InputWait, hold: HoldNotes): Promise<boolean> {
  let waited = false;
  for (let open = w.openPrompt(); open !== null; open = w.openPrompt()) {
    // The card alerts for the question the terminal shows: the agent's own alert gives way to it.
    if (!waited) w.held(null);
    waited = true;
    hold.once(
      `prompt ${open}`,
      `${w.agent} is waiting for an answer to “${clip(open)}”. Leo types nothing into its terminal while that is open; your message goes in once it is answered.`,
    );
    await sleep(INPUT_POLL_MS);
  }
  return waited;
}

function describe(s: Screen): string {
  if (s.kind === 'dialog') return `it shows a dialog: ${s.question}`;
  if (s.kind === 'exited') return `it exited: ${s.detail}`;
  return s.kind === 'input' ? 'the box is empty' : 'its input box is not showing';
}

function waitingOn(s: Screen): string {
  if (s.kind === 'dialog') return `its terminal is asking “${s.question}”`;
  if (s.kind === 'input') return `its input box holds text that was not sent: “${clip(s.text)}”`;
  return 'its input prompt never showed';
}

function clip(text: string, max = 80): string {
  const one = text.replace(/\s+/g, ' ').trim();
  return one.length > max ? `${one.slice(0, max - 1)}…` : one;
}
