import { setTimeout as sleep } from 'node:timers/promises';
import { sessionName } from '../agents/session-name.js';
import type { DeliveryRoute } from '../chat/delivery.js';

export interface PasteTarget {
  pasteText(session: string, text: string, opts?: { bracketed?: boolean }): Promise<void>;
  sendEnter(session: string): Promise<void>;
  captureThenEnter(session: string): Promise<string>;
  capturePane(session: string, lines?: number): Promise<string>;
}

/** Time for the harness to take a bracketed paste in before Enter submits it (prior-art: 100-300 ms). */
export const PASTE_SETTLE_MS = 250;
/** After Enter, how long to wait for the pane to show that the prompt was taken, and how often to press again. */
export const ENTER_CHECK_MS = 300;
export const ENTER_ATTEMPTS = 3;

/**
 * Types a message into an agent's pane as one bracketed paste followed by Enter, so a multi-line text arrives as one
 * prompt in any harness. An Enter sent too soon can be swallowed (read as part of the paste), so the pane is
 * compared before and after, and Enter is pressed again a bounded number of times. The first look and the first press
 * share one tmux call (each is a round trip through tmux's server, and they add up at a fleet's send rate). Pastes
 * into one pane are serialized by the caller (one delivery queue per agent). The waits are real time, not the Clock
 * seam: they pace a terminal, they are not deadlines.
 */
export async function pasteAndSubmit(tmux: PasteTarget, session: string, text: string): Promise<void> {
  await tmux.pasteText(session, text, { bracketed: true });
  await sleep(PASTE_SETTLE_MS);
  const before = await tmux.captureThenEnter(session);
  for (let attempt = 1; attempt <= ENTER_ATTEMPTS; attempt++) {
    if (attempt > 1) await tmux.sendEnter(session);
    await sleep(ENTER_CHECK_MS);
    if ((await tmux.capturePane(session, 0)) !== before) return;
  }
  throw new Error(`the pane did not change after ${ENTER_ATTEMPTS} Enter presses: the agent did not take the message`);
}

/** The route every harness has: type into the agent's pane. Available whenever the agent's session runs. */
export function tmuxPasteRoute(tmux: PasteTarget, isRunning: (agent: string) => boolean): DeliveryRoute {
  return {
    name: 'tmux',
    available: isRunning,
    deliver: (agent, text) => pasteAndSubmit(tmux, sessionName(agent), text),
  };
}
