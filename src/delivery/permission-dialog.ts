import { setTimeout as sleep } from 'node:timers/promises';
import type { PermissionKeys, Screen } from '../harnesses/screen.js';

/** One look at an agent's terminal: the pane as captured, and what its screen reader makes of it. */
export interface TerminalLook {
  pane: string;
  screen: Screen;
}

/**
 * An agent's terminal as permission prompts use it: read, and keys pressed one at a time as a person would. `look`
 * is null when Leo cannot read the agent's screen (a harness it has no reader for, or no session).
 */
export interface AgentTerminal {
  look(agent: string): Promise<TerminalLook | null>;
  press(agent: string, keys: readonly string[]): Promise<void>;
}

/** The permission dialog's keys, when a look shows one. */
export function permissionDialog(look: TerminalLook | null): PermissionKeys | null {
  return look?.screen.kind === 'dialog' ? (look.screen.permission ?? null) : null;
}

export interface DialogAnswerTiming {
  /** How long the dialog gets to close after its keys, before they count as dropped. */
  takeMs: number;
  pollMs: number;
  attempts: number;
}

/** A TUI closes its dialog as the Enter lands; a busy machine gets a few seconds before the keys count as dropped. */
export const DIALOG_ANSWER_TIMING: DialogAnswerTiming = { takeMs: 3_000, pollMs: 250, attempts: 3 };

/**
 * Answers the permission dialog up in an agent's terminal by pressing its allow or deny keys: 'gone' when no
 * permission dialog is up (someone answered it in the terminal, or the turn moved on), 'answered' once it closed.
 * The keys are pressed again only when the pane did not change at all since they were pressed (a TUI dropped them):
 * a pane that changed but still shows a permission dialog shows the next one, which this answer must not touch.
 */
export async function answerPermissionDialog(
  terminal: AgentTerminal,
  agent: string,
  decision: keyof PermissionKeys,
  timing: DialogAnswerTiming = DIALOG_ANSWER_TIMING,
): Promise<'answered' | 'gone'> {
  let look = await terminal.look(agent);
  let keys = permissionDialog(look);
  if (!keys) return 'gone';
  for (let attempt = 1; ; attempt++) {
    const before = look!.pane;
    await terminal.press(agent, keys![decision]);
    for (const until = Date.now() + timing.takeMs; Date.now() < until;) {
      await sleep(timing.pollMs);
      look = await terminal.look(agent);
      keys = permissionDialog(look);
      if (!keys) return 'answered';
    }
    if (look!.pane !== before) return 'answered';
    if (attempt >= timing.attempts)
      throw new Error(`the agent's terminal did not take the answer (pressed ${attempt} times)`);
  }
}
