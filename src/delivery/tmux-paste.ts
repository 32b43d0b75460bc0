import { setTimeout as sleep } from 'node:timers/promises';
import { sessionName } from '../agents/session-name.js';
import type { DeliveryRoute } from '../chat/delivery.js';

export interface PasteTarget {
  pasteText(session: string, text: string, opts?: { bracketed?: boolean }): Promise<void>;
  sendEnter(session: string): Promise<void>;
}

/** Time for the harness to take a bracketed paste in before Enter submits it (prior-art: 100-300 ms). */
export const PASTE_SETTLE_MS = 250;

/**
 * Types a message into an agent's pane as one bracketed paste followed by Enter, so a multi-line text arrives as one
 * prompt in any harness. Pastes into one pane are serialized by the caller (one delivery queue per agent). The settle
 * is real time, not the Clock seam: it paces a terminal, it is not a deadline.
 */
export async function pasteAndSubmit(tmux: PasteTarget, session: string, text: string): Promise<void> {
  await tmux.pasteText(session, text, { bracketed: true });
  await sleep(PASTE_SETTLE_MS);
  await tmux.sendEnter(session);
}

/** The route every harness has: type into the agent's pane. Available whenever the agent's session runs. */
export function tmuxPasteRoute(tmux: PasteTarget, isRunning: (agent: string) => boolean): DeliveryRoute {
  return {
    name: 'tmux',
    available: isRunning,
    deliver: (agent, text) => pasteAndSubmit(tmux, sessionName(agent), text),
  };
}
