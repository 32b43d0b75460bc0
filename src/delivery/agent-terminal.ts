import { sessionName } from '../tmux/session-name.js';
import type { ScreenReader } from '../harnesses/screen.js';
import { pressKeys } from './dialog-answers.js';
import type { AgentTerminal } from './permission-dialog.js';
import { answerStartupDialogs } from './startup-dialogs.js';

/** The tmux calls an agent's terminal needs: a pane capture and key presses. */
export interface PaneKeys {
  capturePane(session: string, history: number): Promise<string>;
  sendKeys(session: string, keys: readonly string[]): Promise<void>;
}

/**
 * An agent's terminal as permission prompts answer it, over its tmux session: readable for a harness whose screen Leo
 * knows (`screenOf` gives null for one it does not, or for an agent that is gone).
 */
export function tmuxAgentTerminal(tmux: PaneKeys, screenOf: (agent: string) => ScreenReader | null): AgentTerminal {
  return {
    look: async (agent) => {
      const read = screenOf(agent);
      if (!read) return null;
      try {
        const pane = await tmux.capturePane(sessionName(agent), 0);
        return { pane, screen: read(pane) };
      } catch {
        return null; // no session: the agent stopped
      }
    },
    press: (agent, keys) => pressKeys(tmux, sessionName(agent), keys),
  };
}

/**
 * Just after a launch, in the background: the start-up dialogs Leo answers itself (answerStartupDialogs), for a
 * harness whose screen it reads. `ended` hears why the watch stopped early.
 */
export function watchStartup(tmux: PaneKeys, agent: string, read: ScreenReader | null, ended: (err: Error) => void) {
  if (!read) return;
  const session = sessionName(agent);
  void answerStartupDialogs(
    async () => read(await tmux.capturePane(session, 0)),
    (keys) => pressKeys(tmux, session, keys),
  ).catch((err) => ended(err as Error));
}
