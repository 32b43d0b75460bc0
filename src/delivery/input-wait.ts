import { setTimeout as sleep } from 'node:timers/promises';
import type { Screen } from './screen/screen.js';
import { DeliveryTimeout } from '../chat/delivery.js';
import { DialogAnswers } from './dialog-answers.js';

export interface InputWait {
  agent: string;
  timeoutMs: number;
  /** Posts a note in the agent's thread. */
  note(text: string): void;
  /** Presses keys in the agent's pane: the answer to a dialog Leo answers itself. */
  press(keys: readonly string[]): Promise<void>;
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

/**
 * Waits until the harness shows an empty input box, the only moment typing is safe: a dialog (workspace trust, a
 * tool's permission) would take the text and Enter as its answer, and text already in the box would be glued to the
 * message. While it waits it says in the thread what holds the message up, once per cause. Fails fast when the
 * harness exited, and after `timeoutMs` with what the screen showed last.
 */
export async function waitForInput(look: () => Promise<Screen>, w: InputWait): Promise<void> {
  const started = Date.now();
  const answers = new DialogAnswers(w.press);
  const noted = new Set<string>();
  const noteOnce = (key: string, text: string) => {
    if (noted.has(key)) return;
    noted.add(key);
    w.note(text);
  };
  let since = started;
  let previous = '';
  for (let looks = 0; ; looks++) {
    const s = await look();
    if (s.kind === 'input' && s.text === '') {
      // A box that just appeared belongs to a TUI still wiring up its keys (opencode lost Enters then): give it a
      // moment. One that was already there when the message came is typed into at once.
      if (looks === 0 || previous === 'ready') return;
      previous = 'ready';
      await sleep(JUST_DRAWN_SETTLE_MS);
      continue;
    }
    if (s.kind === 'exited')
      throw new Error(`the agent's program exited before it could take the message (${s.detail})`);
    const key = JSON.stringify(s);
    if (key !== previous) since = Date.now();
    previous = key;
    const held = Date.now() - since;
    if (s.kind === 'dialog' && s.answer) {
      if (held >= DIALOG_SETTLE_MS) await answers.offer(s.question, s.answer);
    } else if (s.kind === 'dialog' && held >= DIALOG_SETTLE_MS)
      noteOnce(
        `dialog ${s.question}`,
        `${w.agent}'s terminal is asking “${s.question}”` +
          (s.options.length ? ` (${s.options.join(' / ')})` : '') +
          '. Leo typed nothing into it: answer it in the terminal, and the message waiting for it goes in then.',
      );
    if (s.kind === 'input' && held >= BUSY_BOX_NOTE_MS)
      noteOnce(
        'busy box',
        `${w.agent}'s input box already holds text that was not sent (“${clip(s.text)}”); your message goes in once it is cleared.`,
      );
    if (s.kind === 'starting' && Date.now() - started >= SLOW_START_NOTE_MS)
      noteOnce(
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

function waitingOn(s: Screen): string {
  if (s.kind === 'dialog') return `its terminal is asking “${s.question}”`;
  if (s.kind === 'input') return `its input box holds text that was not sent: “${clip(s.text)}”`;
  return 'its input prompt never showed';
}

function clip(text: string): string {
  const one = text.replace(/\s+/g, ' ').trim();
  return one.length > 80 ? `${one.slice(0, 79)}…` : one;
}
