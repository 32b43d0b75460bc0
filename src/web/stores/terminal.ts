import { signal } from '@preact/signals';
import type { TerminalKeysBody, TerminalScreen } from '../../wire/terminal.js';
import { ApiError } from '../api/client.js';
import { api, onUnpaired } from './auth.js';
import { backoffMs } from './backoff.js';

/** Whether the open thread shows its agent's terminal above the messages (the header's Terminal button). */
export const terminalShown = signal(false);

/** The terminal on screen: whose, what it shows, whether it is following live, and the typing switch. */
export const terminalAgent = signal<string | null>(null);
export const screen = signal<TerminalScreen | null>(null);
export const terminalState = signal<'connecting' | 'live' | 'ended' | 'reconnecting'>('connecting');
export const terminalNote = signal<string | null>(null);
/** Keys are pressed only after the owner turns this on, per opening: a stray tap must not steer an agent. */
export const typing = signal(false);

let current: AbortController | null = null;

/** Follows `agent`'s terminal until closeTerminal or another agent's is opened; reconnects while it runs. */
export function openTerminal(agent: string): void {
  closeTerminal();
  const control = new AbortController();
  current = control;
  terminalAgent.value = agent;
  screen.value = null;
  terminalState.value = 'connecting';
  terminalNote.value = null;
  typing.value = false;
  void follow(agent, control.signal);
}

export function closeTerminal(): void {
  current?.abort();
  current = null;
  terminalAgent.value = null;
}

async function follow(agent: string, signal: AbortSignal): Promise<void> {
  for (let attempt = 0; !signal.aborted; attempt++) {
    let ended = false;
    try {
      await api.terminalStream(
        agent,
        (e) => {
          if (e.kind === 'screen') {
            screen.value = e.screen;
            terminalState.value = 'live';
            attempt = 0;
          } else {
            ended = true;
            terminalState.value = 'ended';
            terminalNote.value = e.reason;
          }
        },
        signal,
      );
    } catch (err) {
      if (signal.aborted) return;
      if (await onUnpaired(err)) return;
      // A stopped agent has no terminal: say so and stop asking.
      if (err instanceof ApiError && (err.status === 409 || err.status === 404)) {
        terminalState.value = 'ended';
        terminalNote.value = err.message;
        return;
      }
    }
    if (ended || signal.aborted) return;
    terminalState.value = 'reconnecting';
    await new Promise((r) => setTimeout(r, backoffMs(attempt)));
  }
}

/** Presses keys in the open terminal, if the owner has turned typing on. */
export async function press(keys: TerminalKeysBody['keys']): Promise<void> {
  const agent = terminalAgent.value;
  if (!agent || !typing.value) return;
  try {
    await api.pressKeys(agent, keys);
    terminalNote.value = null;
  } catch (err) {
    if (!(await onUnpaired(err))) terminalNote.value = (err as Error).message;
  }
}
