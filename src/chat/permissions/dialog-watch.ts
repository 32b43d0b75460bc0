import { permissionDialog, type AgentTerminal } from '../../delivery/permission-dialog.js';

/** How often a watched dialog's terminal is read; a dialog answered there closes its card within about this long. */
export const DIALOG_POLL_MS = 1_000;
/** Looks in a row without the dialog before it counts as gone: one capture can catch a TUI mid-redraw. */
const MISSES_TO_CLOSE = 2;

interface Watch {
  agent: string;
  seen: boolean;
  misses: number;
  gone(): void;
  timer?: NodeJS.Timeout;
}

/**
 * Watches the permission dialogs whose prompts Leo answers by pressing keys (no hook holds them) until each is gone
 * from its agent's terminal: answered there, the turn moved on, or the agent stopped. A dialog not yet seen (Codex
 * draws its own only after the hook returned) is waited for rather than counted gone. Real time, not the Clock seam:
 * this paces reading a terminal; the prompt's deadline is kept elsewhere.
 */
export class DialogWatch {
  private readonly watches = new Map<string, Watch>();

  constructor(private readonly deps: { terminal: AgentTerminal; pollMs?: number }) {}

  /** `seen`: the dialog is known to be up now. `gone` is called once, unless the watch is stopped first. */
  watch(id: string, agent: string, seen: boolean, gone: () => void): void {
    this.stop(id);
    const w: Watch = { agent, seen, misses: 0, gone };
    this.watches.set(id, w);
    this.schedule(id, w);
  }

  stop(id: string): void {
    clearTimeout(this.watches.get(id)?.timer);
    this.watches.delete(id);
  }

  /** The prompts whose dialogs are watched in this agent's terminal. */
  watched(agent: string): string[] {
    return [...this.watches].flatMap(([id, w]) => (w.agent === agent ? [id] : []));
  }

  stopAll(): void {
    for (const id of [...this.watches.keys()]) this.stop(id);
  }

  private schedule(id: string, w: Watch): void {
    w.timer = setTimeout(() => void this.check(id, w), this.deps.pollMs ?? DIALOG_POLL_MS);
    w.timer.unref();
  }

  private async check(id: string, w: Watch): Promise<void> {
    const look = await this.deps.terminal.look(w.agent);
    if (this.watches.get(id) !== w) return;
    // No screen to read at all (the agent stopped) ends a dialog not yet drawn too.
    if (permissionDialog(look)) [w.seen, w.misses] = [true, 0];
    else if ((w.seen || look === null) && ++w.misses >= MISSES_TO_CLOSE) {
      this.watches.delete(id);
      return w.gone();
    }
    this.schedule(id, w);
  }
}
