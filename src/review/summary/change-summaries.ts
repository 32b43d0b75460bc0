import type { Clock, TimerHandle } from '../../core/clock.js';
import type { ChangeSummary } from '../../wire/changes.js';
import { sameSummary } from './summary-parse.js';
import type { SummaryInput, SummaryOutput } from './summary-task.js';

/** The slice of the worker pool the summaries use. */
export interface SummaryPool {
  run(task: 'changeSummaries', input: SummaryInput): Promise<SummaryOutput>;
}

export interface ChangeSummariesOptions {
  clock: Clock;
  pool: SummaryPool;
  /**
   * The agents to follow and their workspaces, read at every look (an agent moved away is left out). A stopped agent
   * writes nothing, so its workspace is looked at only every `stoppedIntervalMs` (an owner's own edit shows then).
   */
  agents(): { name: string; workspace: string; running: boolean }[];
  /** One agent's summary changed (the daemon publishes agent_changes). */
  publish(agent: string, changes: ChangeSummary | null): void;
  /** How often a running agent's workspace is looked at; a file written shows within about this plus git's time. */
  intervalMs?: number;
  stoppedIntervalMs?: number;
  onError?(err: unknown): void;
}

/**
 * A workspace whose look took longer than SLOW_LOOK_MS (a huge tree) is looked at no more often than COST_FACTOR times
 * what it took. Below it a look's time is mostly waiting for a core on a busy machine, which spacing would not help.
 */
const SLOW_LOOK_MS = 500;
const COST_FACTOR = 3;

interface Look {
  signature: string | null;
  summary: ChangeSummary | null;
  dueAt: number;
}

/**
 * Each agent's change summary (Agent.changes), kept by looking at its workspace with git on the pool every interval
 * (docs/DECISIONS.md, "Change summaries": why a tick and not a watch). A look whose status is unchanged costs one git
 * status; agents sharing a workspace share its look. A summary is published only when it changes; an agent whose
 * workspace never was a repository has null and no event. Looks never overlap.
 */
export class ChangeSummaries {
  private readonly intervalMs: number;
  private readonly stoppedIntervalMs: number;
  private readonly looks = new Map<string, Look>();
  private readonly published = new Map<string, ChangeSummary | null>();
  private ticker: TimerHandle | null = null;
  private inFlight: Promise<void> | null = null;
  private stopped = false;

  constructor(private readonly opts: ChangeSummariesOptions) {
    this.intervalMs = opts.intervalMs ?? 1000;
    this.stoppedIntervalMs = opts.stoppedIntervalMs ?? 10_000;
  }

  start(): void {
    if (this.ticker) return;
    this.stopped = false;
    this.ticker = this.opts.clock.setInterval(() => void this.lookNow(), this.intervalMs);
    void this.lookNow();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    this.ticker?.cancel();
    this.ticker = null;
    await this.inFlight;
  }

  /** The agent's summary: undefined until its workspace was first looked at. */
  of(agent: string): ChangeSummary | null | undefined {
    return this.published.get(agent);
  }

  /** Something just changed the agent's workspace (its turn ended): look at it now, not at its due time. */
  nudge(agent: string): void {
    const ws = this.opts.agents().find((a) => a.name === agent)?.workspace;
    const look = ws === undefined ? undefined : this.looks.get(ws);
    if (look) look.dueAt = 0;
    void this.lookNow();
  }

  gone(agent: string): void {
    this.published.delete(agent);
  }

  renamed(from: string, to: string): void {
    const value = this.published.get(from);
    if (value === undefined) return;
    this.published.delete(from);
    this.published.set(to, value);
  }

  /** Looks at the workspaces due now, or joins the look under way; resolves once its changes are published. */
  lookNow(): Promise<void> {
    if (!this.inFlight) this.inFlight = this.look().finally(() => (this.inFlight = null));
    return this.inFlight;
  }

  private async look(): Promise<void> {
    const now = this.opts.clock.now();
    // A workspace is running when any agent in it is.
    const workspaces = new Map<string, boolean>();
    for (const a of this.opts.agents()) workspaces.set(a.workspace, a.running || workspaces.get(a.workspace) === true);
    for (const ws of this.looks.keys()) if (!workspaces.has(ws)) this.looks.delete(ws);
    const due = [...workspaces.keys()].filter((ws) => (this.looks.get(ws)?.dueAt ?? 0) <= now);
    if (due.length === 0) return;
    try {
      const { results } = await this.opts.pool.run('changeSummaries', {
        workspaces: due.map((path) => ({ path, signature: this.looks.get(path)?.signature ?? null })),
      });
      if (this.stopped) return;
      const after = this.opts.clock.now();
      for (const r of results) {
        const summary = r.summary === 'same' ? (this.looks.get(r.path)?.summary ?? null) : r.summary;
        const every = workspaces.get(r.path) ? this.intervalMs : this.stoppedIntervalMs;
        const wait = r.ms > SLOW_LOOK_MS ? Math.max(every, r.ms * COST_FACTOR) : every;
        // Due a little early: a tick that lands just before the interval is up still looks.
        this.looks.set(r.path, { signature: r.signature, summary, dueAt: after + wait - this.intervalMs / 2 });
      }
      this.publishChanged();
    } catch (err) {
      this.opts.onError?.(err);
    }
  }

  private publishChanged(): void {
    for (const { name, workspace } of this.opts.agents()) {
      const look = this.looks.get(workspace);
      if (!look) continue;
      const before = this.published.get(name);
      if (sameSummary(before, look.summary)) continue;
      this.published.set(name, look.summary);
      // Null is where every reader starts: the first look at a folder that is no repository says nothing.
      if (before === undefined && look.summary === null) continue;
      try {
        this.opts.publish(name, look.summary);
      } catch (err) {
        this.opts.onError?.(err);
      }
    }
  }
}
