import type { Clock, TimerHandle } from '../../core/clock.js';
import type { AgentStatus } from '../../wire/fleet.js';

/** What the daemon knows of an agent's process: never stored, rebuilt from tmux when the daemon starts. */
export interface Runtime {
  status: AgentStatus;
  restarts: number;
  consecutiveCrashes: number;
  /** What one of those crashes printed last, when tmux had drawn it ("exit 3: fatal: …"). */
  crashWords: string | null;
  startedAt: number | null;
  /** A crash relaunch waiting for its back-off delay. */
  retry: TimerHandle | null;
}

/** Drops a crash relaunch still waiting for its delay. */
export function cancelRetry(rt: Runtime): void {
  rt.retry?.cancel();
  rt.retry = null;
}

/** Every agent's runtime, made on first use. */
export class Runtimes {
  private readonly runtimes = new Map<string, Runtime>();

  /**
   * `unrestored`: agents stored as active when the daemon started, until restore() has listed tmux: each reports
   * `restoring` (never `stopped`), whether it turns out live or has to be started again.
   */
  constructor(
    private readonly clock: Clock,
    private readonly unrestored: Set<string>,
  ) {}

  of(name: string): Runtime {
    let rt = this.runtimes.get(name);
    if (!rt) {
      const status = this.unrestored.has(name) ? 'restoring' : 'stopped';
      rt = { status, restarts: 0, consecutiveCrashes: 0, crashWords: null, startedAt: null, retry: null };
      this.runtimes.set(name, rt);
    }
    return rt;
  }

  /** The runtime if the agent has one yet (reading never makes one). */
  peek(name: string): Runtime | undefined {
    return this.runtimes.get(name);
  }

  /** restore() has listed tmux: from now on an agent without a runtime is stopped. */
  restored(): void {
    this.unrestored.clear();
  }

  delete(name: string): void {
    this.runtimes.delete(name);
  }

  move(from: string, to: string): void {
    const rt = this.of(from);
    this.runtimes.delete(from);
    this.runtimes.set(to, rt);
  }

  /** The agents whose status is running. */
  running(): string[] {
    return [...this.runtimes].filter(([, rt]) => rt.status === 'running').map(([agent]) => agent);
  }

  all(): Iterable<Runtime> {
    return this.runtimes.values();
  }

  markRunning(name: string, resetCrashes = true): void {
    const rt = this.of(name);
    rt.status = 'running';
    rt.startedAt = this.clock.now();
    if (resetCrashes) {
      rt.consecutiveCrashes = 0;
      rt.crashWords = null;
    }
  }
}
