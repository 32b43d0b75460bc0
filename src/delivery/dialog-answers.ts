import { setTimeout as sleep } from 'node:timers/promises';

/** A dialog still up this long after its answer was pressed gets it again: a TUI still starting can drop keys. */
export const ANSWER_RETRY_MS = 2_000;
const MAX_ANSWERS = 3;

/**
 * Presses the keys a dialog's screen asks for once, again if that same screen is still up after a while, a bounded
 * number of times. A screen that moved on (the highlight a step further) asks for its own keys.
 */
export class DialogAnswers {
  private readonly pressed = new Map<string, { at: number; times: number }>();

  constructor(private readonly press: (keys: readonly string[]) => Promise<void>) {}

  async offer(question: string, keys: readonly string[]): Promise<void> {
    const screen = JSON.stringify([question, keys]);
    const last = this.pressed.get(screen);
    if (last && (last.times >= MAX_ANSWERS || Date.now() - last.at < ANSWER_RETRY_MS)) return;
    this.pressed.set(screen, { at: Date.now(), times: (last?.times ?? 0) + 1 });
    await this.press(keys);
  }
}

/** Between two keys of an answer: a menu that gets Down and Enter in one burst can take the Enter first. */
const KEY_GAP_MS = 150;

/** Presses `keys` one at a time, as a person would. */
export async function pressKeys(
  target: { sendKeys(session: string, keys: readonly string[]): Promise<void> },
  session: string,
  keys: readonly string[],
): Promise<void> {
  for (const [i, key] of keys.entries()) {
    if (i > 0) await sleep(KEY_GAP_MS);
    await target.sendKeys(session, [key]);
  }
}
