import { setTimeout as sleep } from 'node:timers/promises';
import type { Screen } from '../harnesses/screen.js';
import { INPUT_POLL_MS } from './input-wait.js';
import { DialogAnswers } from './dialog-answers.js';

/** How long after a launch its screen is watched for a dialog Leo answers itself. */
export const STARTUP_WATCH_MS = 30_000;

/**
 * Watches a harness that just started until it shows its input box (or exits, or the watch times out), answering on
 * the way the dialogs the screen reader gives an answer for (Claude's trust question for Leo's own workspace). A
 * delivery does the same while it waits; this covers the agent nobody has written to yet, so its terminal is at its
 * prompt rather than at a question. Other dialogs are left for the person and for delivery to describe.
 */
export async function answerStartupDialogs(
  look: () => Promise<Screen>,
  press: (keys: readonly string[]) => Promise<void>,
  timeoutMs = STARTUP_WATCH_MS,
): Promise<void> {
  const answers = new DialogAnswers(press);
  for (const until = Date.now() + timeoutMs; Date.now() < until; await sleep(INPUT_POLL_MS)) {
    const s = await look();
    if (s.kind === 'input' || s.kind === 'exited') return;
    if (s.kind === 'dialog' && s.answer) await answers.offer(s.question, s.answer);
  }
}
