import { KeyedQueue } from '../../core/keyed-queue.js';
import type { AgentRecord } from '../agent-record.js';
import type { AgentStore } from '../agent-store.js';
import { FormerNames } from '../former-names.js';
import type { AgentLauncher } from '../launcher.js';
import { sessionName } from '../../tmux/session-name.js';
import type { SessionControl } from './fleet-state.js';
import { cancelRetry, type Runtimes } from './runtime.js';

/**
 * Each agent's harness process in its tmux session: launched, halted and booted, one operation per agent at a time
 * (the supervisor's operations and crash recovery share the queue), with the names a renamed process still goes by.
 */
export class AgentProcesses {
  readonly formerNames = new FormerNames();
  private readonly queues = new KeyedQueue();

  constructor(
    private readonly deps: {
      store: AgentStore;
      tmux: SessionControl;
      launcher: AgentLauncher;
      runtimes: Runtimes;
    },
  ) {}

  /** Runs `fn` once the agent's operations queued before it are done. */
  serial<T>(name: string, fn: () => Promise<T>): Promise<T> {
    return this.queues.run(name, fn);
  }

  /** Every launch goes here: the new process has the agent's own name, so its former names are done with. */
  launch(record: AgentRecord, opts: { resume: boolean }): Promise<void> {
    this.formerNames.ended(record.name);
    return this.deps.launcher.launch(record, opts);
  }

  /** Starts the agent anew (any session left is killed first): active, its stop reason cleared, running. */
  async boot(record: AgentRecord, resume: boolean): Promise<void> {
    await this.deps.tmux.killSession(sessionName(record.name));
    await this.launch(record, { resume });
    this.deps.store.setState(record.name, 'active');
    if (record.stop_reason !== null) this.deps.store.update(record.name, { stop_reason: null });
    this.deps.runtimes.markRunning(record.name);
  }

  /** Ends the agent's process (and any crash relaunch due): stopped, whatever its record says next. */
  async halt(name: string): Promise<void> {
    const rt = this.deps.runtimes.of(name);
    cancelRetry(rt);
    await this.deps.tmux.killSession(sessionName(name));
    this.formerNames.ended(name);
    rt.status = 'stopped';
  }

  /** The agent was renamed: a live process still goes by its old name until it is launched again. */
  renamed(from: string, to: string, live: boolean): void {
    if (live) this.formerNames.renamedLive(from, to);
    else {
      this.formerNames.ended(from);
      this.formerNames.taken(to);
    }
  }

  /** Every operation already queued has finished. */
  onIdle(): Promise<void> {
    return this.queues.onIdle();
  }
}
