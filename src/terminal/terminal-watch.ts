import type { Clock, TimerHandle } from '../core/clock.js';
import type { TerminalScreen } from '../wire/terminal.js';

export type ScreenListener = (
  e: { kind: 'screen'; screen: TerminalScreen } | { kind: 'ended'; reason: string },
) => void;

export interface TerminalWatchDeps {
  /** The agent's screen now; rejects with `gone` set when its session has ended. */
  capture(agent: string): Promise<TerminalScreen>;
  /** Whether a capture failure means the agent's terminal is gone (it stopped), rather than a passing error. */
  isGone(err: unknown): boolean;
  clock: Clock;
  /** How often a watched pane is captured; a change reaches watchers within about this long. */
  intervalMs: number;
}

interface Watched {
  listeners: Set<ScreenListener>;
  timer: TimerHandle;
  last: TerminalScreen | null;
  busy: boolean;
}

const same = (a: TerminalScreen, b: TerminalScreen) =>
  a.ansi === b.ansi && a.cursor.x === b.cursor.x && a.cursor.y === b.cursor.y && a.cols === b.cols && a.rows === b.rows;

/**
 * Live terminals for whoever watches them. A pane nobody watches costs nothing; a watched one is captured once per
 * interval however many watch it, and only a change is handed on. A new watcher gets the last screen at once.
 */
export class TerminalWatch {
  private readonly watched = new Map<string, Watched>();

  constructor(private readonly deps: TerminalWatchDeps) {}

  watch(agent: string, listener: ScreenListener): () => void {
    let w = this.watched.get(agent);
    if (!w) {
      const fresh: Watched = {
        listeners: new Set(),
        timer: this.deps.clock.setInterval(() => void this.tick(agent, fresh), this.deps.intervalMs),
        last: null,
        busy: false,
      };
      this.watched.set(agent, fresh);
      w = fresh;
      void this.tick(agent, fresh);
    } else if (w.last) listener({ kind: 'screen', screen: w.last });
    w.listeners.add(listener);
    const mine = w;
    return () => {
      mine.listeners.delete(listener);
      if (mine.listeners.size === 0) this.drop(agent, mine);
    };
  }

  /** How many agents are watched now (for tests and metrics). */
  watching(): number {
    return this.watched.size;
  }

  close(): void {
    for (const [agent, w] of this.watched) this.end(agent, w, 'Leo is shutting down');
  }

  private async tick(agent: string, w: Watched): Promise<void> {
    // A slow capture is not stacked on: the next interval takes the screen as it is by then.
    if (w.busy) return;
    w.busy = true;
    try {
      const screen = await this.deps.capture(agent);
      if (this.watched.get(agent) !== w) return;
      if (w.last && same(w.last, screen)) return;
      w.last = screen;
      for (const l of [...w.listeners]) l({ kind: 'screen', screen });
    } catch (err) {
      if (this.watched.get(agent) === w && this.deps.isGone(err)) this.end(agent, w, `${agent} is not running`);
    } finally {
      w.busy = false;
    }
  }

  private end(agent: string, w: Watched, reason: string): void {
    this.drop(agent, w);
    for (const l of [...w.listeners]) l({ kind: 'ended', reason });
    w.listeners.clear();
  }

  private drop(agent: string, w: Watched): void {
    w.timer.cancel();
    if (this.watched.get(agent) === w) this.watched.delete(agent);
  }
}
