import type { Harness } from '../config/schema.js';
import type { Clock, TimerHandle } from '../core/clock.js';
import type { Chrome } from '../harnesses/chrome-parts.js';
import { adapterOf } from '../harnesses/index.js';
import type {
  ActivityChange,
  ActivityTracker,
  AgentSession,
  SweepInput,
  SweepObservation,
} from './activity-tracker.js';

/** The slice of the worker pool the sweeper uses. */
export interface SweepPool {
  run(task: 'sweep', input: SweepInput): Promise<SweepObservation>;
}

export interface ActivitySweeperOptions {
  clock: Clock;
  pool: SweepPool;
  tracker: ActivityTracker;
  tmuxSocket: string;
  tmuxBin?: string;
  /** Agents whose status is running, each with its tmux session; read at every sweep. */
  agentsRunning(): AgentSession[];
  /** One activity change (the daemon maps it to the bus event agent_activity). */
  publish(change: ActivityChange): void;
  /**
   * Every sweep that asked tmux, after its changes are published, so other readers of the fleet's sessions (crash
   * detection) share the one list-sessions. `swept` are the agents that were running when the sweep started: an agent
   * started since may legitimately be missing from `observation`.
   */
  onObservation?(observation: SweepObservation, swept: AgentSession[]): void;
  intervalMs?: number;
  /** A failed sweep, publish or observer; the sweeper keeps going. */
  onError?(err: unknown): void;
}

export interface SweeperStats {
  sweeps: number;
  /** Ticks dropped because the previous sweep was still running. */
  skipped: number;
  failures: number;
  /** Turn ends heard (Stop hooks): each can change an agent's activity between sweeps. */
  turnEnds: number;
  lastSweepMs: number | null;
}

/**
 * Drives the activity sweep on the main thread: every interval it asks a pool thread for one sweep of the fleet, feeds
 * the result to the tracker and publishes what the tracker says changed, including, on a Clock timer, the changes the
 * publish rate limit held back. Sweeps never overlap: a tick that finds one still running is skipped.
 */
export class ActivitySweeper {
  private readonly intervalMs: number;
  private ticker: TimerHandle | null = null;
  private flushTimer: TimerHandle | null = null;
  private inFlight: Promise<void> | null = null;
  private stopped = false;
  private readonly counts: SweeperStats = { sweeps: 0, skipped: 0, failures: 0, turnEnds: 0, lastSweepMs: null };

  constructor(private readonly opts: ActivitySweeperOptions) {
    this.intervalMs = opts.intervalMs ?? 2000;
  }

  start(): void {
    if (this.ticker) return;
    this.stopped = false;
    this.ticker = this.opts.clock.setInterval(() => {
      if (this.inFlight) this.counts.skipped++;
      else void this.sweepNow();
    }, this.intervalMs);
  }

  /** Sweeps now, or joins the sweep already running; resolves once its changes are published. Never rejects. */
  sweepNow(): Promise<void> {
    if (!this.inFlight) this.inFlight = this.sweep().finally(() => (this.inFlight = null));
    return this.inFlight;
  }

  /** Stops the ticker and the pending flush; resolves once a sweep still running has finished (unpublished). */
  async stop(): Promise<void> {
    this.stopped = true;
    this.ticker?.cancel();
    this.ticker = null;
    this.flushTimer?.cancel();
    this.flushTimer = null;
    await this.inFlight;
  }

  /** The agent's turn ended (its Stop hook): it is idle now, not after the quiet window. */
  turnEnded(agent: string): void {
    this.counts.turnEnds++;
    this.emit(this.opts.tracker.turnEnded(agent, this.opts.clock.now()));
  }

  stats(): SweeperStats {
    return { ...this.counts };
  }

  private async sweep(): Promise<void> {
    const { clock, tracker } = this.opts;
    const started = clock.now();
    try {
      const before = this.opts.agentsRunning();
      // With no agent running there is nothing to ask tmux; the tracker still hears it, to turn everyone unknown.
      const asked = before.length > 0;
      const result: SweepObservation = asked
        ? await this.opts.pool.run('sweep', {
            socketPath: this.opts.tmuxSocket,
            ...(this.opts.tmuxBin ? { tmuxBin: this.opts.tmuxBin } : {}),
            previous: tracker.baselines(before),
            ...furnitureOf(before),
          })
        : { sessions: [], panes: {} };
      if (this.stopped) return;
      // Read again: an agent stopped while the sweep ran must not be reported from it.
      this.emit(tracker.observe(this.opts.agentsRunning(), result, clock.now()));
      // Only real observations: an empty stand-in would read as every session gone.
      if (asked && this.opts.onObservation) {
        try {
          this.opts.onObservation(result, before);
        } catch (err) {
          this.opts.onError?.(err);
        }
      }
      this.counts.sweeps++;
      this.counts.lastSweepMs = clock.now() - started;
    } catch (err) {
      this.counts.failures++;
      this.opts.onError?.(err);
    }
  }

  private emit(changes: ActivityChange[]): void {
    for (const change of changes) {
      try {
        this.opts.publish(change);
      } catch (err) {
        this.opts.onError?.(err);
      }
    }
    this.scheduleFlush();
  }

  private scheduleFlush(): void {
    this.flushTimer?.cancel();
    this.flushTimer = null;
    const due = this.opts.tracker.nextDueAt();
    if (due === null || this.stopped) return;
    this.flushTimer = this.opts.clock.setTimeout(
      () => {
        this.flushTimer = null;
        if (!this.stopped) this.emit(this.opts.tracker.flushDue(this.opts.clock.now()));
      },
      Math.max(0, due - this.opts.clock.now()),
    );
  }
}

/** Each session's harness, and each of those harnesses' furniture once (the sweep's regular expressions are cloned). */
function furnitureOf(agents: readonly AgentSession[]): Pick<SweepInput, 'harnesses' | 'chrome'> {
  const harnesses: Record<string, Harness> = {};
  const chrome: Partial<Record<Harness, Chrome>> = {};
  for (const a of agents) {
    if (!a.harness) continue;
    harnesses[a.session] = a.harness;
    const c = adapterOf(a.harness)?.chrome;
    if (c) chrome[a.harness] = c;
  }
  return { harnesses, chrome };
}
