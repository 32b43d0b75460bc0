import type { Config, Harness } from '../../config/schema.js';
import type { Clock } from '../../core/clock.js';
import type { LeoPaths } from '../../core/home.js';
import type { Logger } from '../../core/logger.js';
import type { EventBus } from '../../events/bus.js';
import type { ActivitySnapshot } from '../../observe/activity-tracker.js';
import type { SessionInfo } from '../../tmux/list-format.js';
import type { Agent } from '../../wire/fleet.js';
import type { LeoError } from '../../core/leo-error.js';
import { AgentError, agentMoving, movedAway } from '../agent-error.js';
import type { AgentRecord } from '../agent-record.js';
import type { AgentStore } from '../agent-store.js';
import { agentView } from '../agent-view.js';
import type { AgentLauncher } from '../launcher.js';
import type { Worktrees } from '../worktrees/worktrees.js';
import { resolveAgent, type ResolvedAgent } from '../resolve.js';
import { sessionName } from '../../tmux/session-name.js';
import { Runtimes } from './runtime.js';

/** What the supervisor asks of tmux beyond starting sessions (the launcher does that). */
export interface SessionControl {
  hasSession(name: string): Promise<boolean>;
  /** The pane's text with `lines` of history: what an exited harness said last. */
  capturePane(name: string, lines?: number): Promise<string>;
  killSession(name: string): Promise<boolean>;
  renameSession(from: string, to: string): Promise<void>;
  listSessions(): Promise<SessionInfo[]>;
}

/** The activity tracker as the supervisor sees it: read per agent, told when an agent leaves or changes name. */
export interface ActivityBook {
  snapshot(agent: string): ActivitySnapshot;
  forget(agent: string): void;
  rename(from: string, to: string): void;
}

export interface SupervisorDeps {
  store: AgentStore;
  tmux: SessionControl;
  launcher: AgentLauncher;
  /** Worktree agents' own trees: made at spawn, renamed and taken away with their agent. */
  worktrees: Worktrees;
  bus: EventBus;
  clock: Clock;
  logger: Logger;
  paths: LeoPaths;
  config(): Config;
  activity: ActivityBook;
  /** Says something in an agent's thread: why the daemon stopped it. */
  note(agent: string, text: string): void;
  /** Parked by a move under way (issue 32, src/hosts/move/side/move-holds.ts): nothing starts it until it lets go. */
  held(name: string): boolean;
}

/**
 * The fleet as the supervisor knows it and tells it: the durable records with each agent's runtime, read as views,
 * and the events that say a view changed. The operations that change it are the Supervisor's.
 */
export class FleetState {
  protected readonly runtimes: Runtimes;

  constructor(protected readonly deps: SupervisorDeps) {
    const active = deps.store.list().flatMap((r) => (r.state === 'active' ? [r.name] : []));
    this.runtimes = new Runtimes(deps.clock, new Set(active));
  }

  list(): Agent[] {
    return this.deps.store.list().map((r) => this.view(r));
  }

  get(name: string): Agent {
    return this.view(this.record(name));
  }

  has(name: string): boolean {
    return this.deps.store.get(name) !== null;
  }

  /** What an existing agent runs with (the defaults → template → agent cascade); undefined for no such agent. */
  resolved(name: string): ResolvedAgent | undefined {
    const record = this.deps.store.get(name);
    return record ? resolveAgent(record, this.deps.config(), this.deps.paths.home) : undefined;
  }

  names(): string[] {
    return this.deps.store.list().map((r) => r.name);
  }

  isRunning(name: string): boolean {
    return this.runtimes.peek(name)?.status === 'running';
  }

  /** Stopped on purpose (by its owner, or by the daemon after it kept failing): only a start brings it back. */
  staysDown(name: string): boolean {
    return !this.isRunning(name) && this.deps.store.get(name)?.state === 'stopped';
  }

  /** Why nothing is sent to, or started as, `name` here: the dormant record of an agent that moved away; else null. */
  movedError(name: string): LeoError | null {
    const record = this.deps.store.get(name);
    return record?.moved_to ? movedAway(record) : null;
  }

  /** Why `name` is not started now: a move parked it and is shipping it (issue 32); else null. */
  heldError(name: string): LeoError | null {
    return this.deps.held(name) ? agentMoving(name) : null;
  }

  /** Every running agent's session, with its harness (the sweep reads its pane by it). */
  runningSessions(): { agent: string; session: string; harness: Harness }[] {
    const config = this.deps.config();
    const records = new Map(this.deps.store.list().map((r) => [r.name, r]));
    return this.runtimes.running().map((agent) => {
      const record = records.get(agent);
      const harness = record ? resolveAgent(record, config, this.deps.paths.home).harness : config.defaults.harness;
      return { agent, session: sessionName(agent), harness };
    });
  }

  protected record(name: string): AgentRecord {
    const record = this.deps.store.get(name);
    if (!record) throw new AgentError('not_found', `no agent named "${name}"`);
    return record;
  }

  protected view(record: AgentRecord): Agent {
    const seen = this.deps.activity.snapshot(record.name);
    return agentView(record, this.runtimes.of(record.name), seen, this.deps.config(), this.deps.paths.home);
  }

  /**
   * Says the agent's lifecycle changed, with every field a change can move (a start moves started_at, a crash
   * restarts, the daemon's give-up stop_reason), so a consumer applies it without a refetch; `extra` adds fields the
   * caller changed too.
   */
  protected stateChanged(name: string, extra: Partial<Agent> = {}): void {
    const agent = this.get(name);
    this.deps.bus.publish('agent_state_changed', {
      agent: name,
      status: agent.status,
      wake_on_message: agent.wake_on_message,
      started_at: agent.started_at,
      restarts: agent.restarts,
      stop_reason: agent.stop_reason,
      ...extra,
    });
  }

  protected appearanceChanged(name: string): void {
    this.deps.bus.publish('agent_appearance_changed', { agent: name, appearance: this.get(name).appearance ?? null });
  }
}
