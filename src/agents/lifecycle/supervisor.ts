import { rfc3339 } from '../../core/time.js';
import type { SessionInfo } from '../../tmux/list-format.js';
import { isInside } from '../../core/path-inside.js';
import type { RemovedAgent } from '../../wire/agent-bodies.js';
import type { Agent } from '../../wire/fleet.js';
import { AgentError, stayingDown } from '../agent-error.js';
import type { AgentRecord } from '../agent-record.js';
import type { AgentStore } from '../agent-store.js';
import { liveRenameView } from '../agent-view.js';
import { resolveAgent } from '../resolve.js';
import { sessionName } from '../../tmux/session-name.js';
import { AgentProcesses } from './agent-processes.js';
import { CrashRecovery } from './crash-recovery.js';
import { FleetState, type SupervisorDeps } from './fleet-state.js';
import { idleToPark } from './idle-parking.js';
import { cancelRetry } from './runtime.js';
import type { MadeWorktree } from '../worktrees/worktrees.js';
import {
  assertEnvironments,
  assertTemplate,
  spawnedRecord,
  wantsWorktree,
  type SpawnRequest,
} from './spawn-request.js';

/**
 * Owns every agent's lifecycle: the durable record, the live tmux session, and the in-memory runtime (status,
 * restarts, start time). Operations on one agent run one at a time; each publishes exactly the events the
 * observability spec describes for it. Crash restarts are CrashRecovery's, idle parking idle-parking.ts's; both act
 * through the same per-agent queue.
 */
export class Supervisor extends FleetState {
  private readonly goneListeners: ((agent: string) => void)[] = [];
  private readonly processes: AgentProcesses;
  private readonly crashes: CrashRecovery;

  constructor(deps: SupervisorDeps) {
    super(deps);
    this.processes = new AgentProcesses({ ...deps, runtimes: this.runtimes });
    this.crashes = new CrashRecovery({
      ...deps,
      runtimes: this.runtimes,
      processes: this.processes,
      stateChanged: (name) => this.stateChanged(name),
    });
  }

  /** Told when an agent leaves for good (stop, remove): its open asks close as agent_gone. */
  onGone(listener: (agent: string) => void): void {
    this.goneListeners.push(listener);
  }

  /**
   * The agent a hook or tool call naming itself `name` comes from: after a live rename the harness still calls itself
   * by the old name (its LEO_AGENT) until it is launched again.
   */
  currentName(name: string): string {
    return this.has(name) ? name : this.processes.formerNames.resolve(name);
  }

  /** Brings the fleet back after a daemon start (crash-recovery.ts). */
  restore(): Promise<void> {
    return this.crashes.restore();
  }

  // ---- operations ---------------------------------------------------------------------------------------------

  async spawn(req: SpawnRequest): Promise<Agent> {
    const config = this.deps.config();
    assertTemplate(req.template, config);
    assertEnvironments(req.environments, config);
    if (this.deps.store.get(req.name)) throw new AgentError('conflict', `an agent named "${req.name}" already exists`);
    const worktree = wantsWorktree(req, config);
    return this.serial(req.name, async () => {
      let record = spawnedRecord(req, rfc3339(this.deps.clock.now()));
      this.deps.launcher.check(record);
      this.deps.store.insert(record);
      this.processes.formerNames.taken(record.name);
      let made: MadeWorktree | null = null;
      try {
        const workspace = resolveAgent(record, config, this.deps.paths.home).workspace;
        // The base is the worktree's start point then, not the shared clone's.
        await this.deps.launcher.prepareWorkspace(workspace, record, worktree ? undefined : req.base);
        if (worktree) {
          made = await this.deps.worktrees.make({
            repository: workspace,
            agent: record.name,
            base: req.base,
            inUse: (dir) => this.worksIn(dir, record.name),
          });
          record = { ...record, workspace: made.workspace, branch: made.branch };
          this.deps.store.update(record.name, { workspace: made.workspace, branch: made.branch });
        }
        // One that arrives with its conversation (a move's or a copy's) starts resuming it.
        await this.processes.launch(record, { resume: record.session_id !== null });
      } catch (err) {
        this.deps.store.remove(record.name);
        this.runtimes.delete(record.name);
        await made?.undo();
        throw err;
      }
      this.runtimes.markRunning(record.name);
      const agent = this.get(record.name);
      this.deps.bus.publish('agent_spawned', { agent });
      return agent;
    });
  }

  /** Stops on purpose: it stays down until started, and its open asks close. */
  stop(name: string): Promise<Agent> {
    return this.serial(name, async () => {
      this.record(name);
      await this.processes.halt(name);
      this.deps.store.setState(name, 'stopped');
      this.deps.bus.publish('agent_stopped', { agent: name, wake_on_message: false });
      for (const l of this.goneListeners) l(name);
      return this.get(name);
    });
  }

  /** Parks an idle agent: stopped, but an inbound message starts it again (wake()). */
  park(name: string): Promise<Agent> {
    return this.serial(name, async () => {
      this.record(name);
      await this.processes.halt(name);
      this.deps.store.setState(name, 'parked');
      this.deps.bus.publish('agent_stopped', { agent: name, wake_on_message: true });
      return this.get(name);
    });
  }

  start(name: string): Promise<Agent> {
    return this.serial(name, async () => {
      const record = this.here(name);
      if (this.runtimes.of(name).status === 'running' && (await this.deps.tmux.hasSession(sessionName(name))))
        return this.get(name);
      await this.processes.boot(record, true);
      this.stateChanged(name);
      return this.get(name);
    });
  }

  /**
   * Starts a parked agent for a message from another agent or the message API; a running one is left alone. One
   * stopped on purpose (by its owner, or by the daemon after it kept failing) stays down until it is started
   * (observability spec, wake_on_message): a conflict that names the command. Leo Chat starts agents itself.
   */
  async wake(name: string): Promise<boolean> {
    // Checked first: a move may hold the agent while its process still runs, a moment before it halts it.
    const held = this.heldError(name);
    if (held) throw held;
    if (this.runtimes.of(name).status === 'running') return false;
    this.here(name);
    if (this.staysDown(name)) throw new AgentError('conflict', stayingDown(name));
    await this.start(name);
    return true;
  }

  restart(name: string): Promise<Agent> {
    return this.serial(name, async () => this.relaunch(name, this.here(name)));
  }

  /** A fresh start: same identity, no conversation carried over, restart count back to zero. */
  reset(name: string): Promise<Agent> {
    return this.serial(name, async () =>
      this.relaunch(name, { ...this.here(name), session_id: null }, { fresh: true, update: { session_id: null } }),
    );
  }

  /**
   * Removes the agent for good. A worktree agent's tree goes too when nothing in it would be lost, or with `force`
   * (worktrees.ts); the answer says what stayed and why. The agent goes either way.
   */
  remove(name: string, opts: { force?: boolean } = {}): Promise<RemovedAgent> {
    return this.serial(name, async () => {
      const record = this.record(name);
      await this.processes.halt(name);
      const worktree =
        record.workspace && record.branch
          ? await this.deps.worktrees.leave(record.workspace, record.branch, opts.force ?? false)
          : undefined;
      this.deps.store.remove(name);
      this.runtimes.delete(name);
      this.deps.activity.forget(name);
      this.deps.bus.publish('agent_stopped', { agent: name, wake_on_message: false });
      for (const l of this.goneListeners) l(name);
      return { name, removed: true, ...(worktree ? { worktree } : {}) };
    });
  }

  /**
   * Renames the agent, live or stopped, and its thread with it (the store moves every row keyed by its name in one
   * transaction). Nothing is published until the rename has happened: a failed tmux rename or store write shows no
   * departure. A rename during crash back-off carries the pending restart over to the new name.
   */
  rename(from: string, to: string): Promise<Agent> {
    return this.serial(from, async () => {
      const record = this.unheld(from);
      if (this.deps.store.get(to)) throw new AgentError('conflict', `an agent named "${to}" already exists`);
      const rt = this.runtimes.of(from);
      const live = rt.status === 'running' && (await this.deps.tmux.hasSession(sessionName(from)));
      if (live) await this.deps.tmux.renameSession(sessionName(from), sessionName(to));
      try {
        this.deps.store.rename(from, to);
      } catch (err) {
        if (live) await this.deps.tmux.renameSession(sessionName(to), sessionName(from)).catch(() => {});
        throw err;
      }
      await this.renameBranch(record, to);
      // Starting is crash back-off: a relaunch is due (on a timer, or already queued under the old name, where it
      // would find no record). It is armed again under the new name.
      const backingOff = rt.status === 'starting';
      cancelRetry(rt);
      this.runtimes.move(from, to);
      this.processes.renamed(from, to, live);
      this.deps.activity.rename(from, to);
      this.deps.bus.publish('agent_stopped', { agent: from, wake_on_message: false });
      if (live) {
        this.deps.bus.publish('agent_spawned', { agent: liveRenameView(this.view({ ...record, name: to })) });
        this.appearanceChanged(to);
      } else {
        this.deps.bus.publish('agent_spawned', { agent: this.get(to) });
      }
      if (backingOff) this.crashes.backOff(to);
      return this.get(to);
    });
  }

  setTemplate(name: string, template: string): Promise<Agent> {
    return this.serial(name, async () => {
      const record = this.here(name);
      assertTemplate(template, this.deps.config());
      const agent = await this.relaunch(name, { ...record, template }, { update: { template } });
      this.appearanceChanged(name);
      return agent;
    });
  }

  /** Switches the agent's named environments; a live or parked agent restarts and resumes its conversation. */
  setEnvironments(name: string, environments: string[]): Promise<Agent> {
    return this.serial(name, async () => {
      const record = this.unheld(name);
      assertEnvironments(environments, this.deps.config());
      const next = { ...record, environments: environments.length ? environments : null };
      this.deps.store.update(name, { environments: next.environments });
      if (record.state !== 'stopped') {
        await this.processes.halt(name);
        await this.processes.boot(next, true);
      }
      const agent = this.get(name);
      this.stateChanged(name, {
        environments: agent.environments,
        environments_source: agent.environments_source,
        environment_error: agent.environment_error,
      });
      this.appearanceChanged(name);
      return agent;
    });
  }

  /**
   * A move's last step (issue 32): the agent now runs on `to` (a `client.hosts` key of the hub that moved it), as
   * `as` when it took another name there. Its record stays, dormant and stopped for good, so what is sent to it is
   * forwarded there; agent_state_changed carries the marks, so no reader refetches. Marking again is a no-op.
   */
  markMoved(name: string, moved: { to: string; as: string | null; at: string }): Promise<Agent> {
    return this.serial(name, async () => {
      const record = this.record(name);
      if (record.moved_to) return this.get(name);
      await this.processes.halt(name);
      this.deps.store.update(name, { state: 'stopped', moved_to: moved.to, moved_at: moved.at, moved_as: moved.as });
      const agent = this.get(name);
      this.stateChanged(name, {
        moved_to: agent.moved_to,
        moved_at: agent.moved_at,
        ...(agent.moved_as ? { moved_as: agent.moved_as } : {}),
      });
      // It left for good: what it had open here closes, as for a stop.
      for (const l of this.goneListeners) l(name);
      return agent;
    });
  }

  /**
   * Puts back the dormant record (`moved_to` set) a move's spawn replaced here, when that move is undone: the old
   * address forwards to where the agent went, as it did before. A name taken meanwhile keeps its agent.
   */
  restoreDormant(record: AgentRecord): Promise<Agent> {
    return this.serial(record.name, async () => {
      if (!record.moved_to) throw new AgentError('conflict', `${record.name}'s record is not a moved agent's`);
      if (!this.deps.store.get(record.name)) {
        this.deps.store.insert({ ...record, state: 'stopped' });
        this.deps.bus.publish('agent_spawned', { agent: this.get(record.name) });
      }
      return this.get(record.name);
    });
  }

  /** `null` clears a value, `undefined` leaves it. */
  setAppearance(name: string, patch: { emoji?: string | null; color?: string | null }): Promise<Agent> {
    return this.serial(name, async () => {
      this.record(name);
      this.deps.store.update(name, {
        ...(patch.emoji !== undefined ? { emoji: patch.emoji } : {}),
        ...(patch.color !== undefined ? { color: patch.color } : {}),
      });
      this.appearanceChanged(name);
      return this.get(name);
    });
  }

  /** Remembers the conversation a harness reported, so the next restart resumes exactly it. */
  noteSession(name: string, sessionId: string): void {
    if (this.deps.store.get(name)) this.deps.store.update(name, { session_id: sessionId });
  }

  /** After a config reload every agent's appearance is republished, without diffing (spec). */
  republishAppearances(): void {
    for (const r of this.deps.store.list()) this.appearanceChanged(r.name);
  }

  /** For shutdown: no more crash restarts, and every operation already queued has finished. */
  async close(): Promise<void> {
    for (const rt of this.runtimes.all()) cancelRetry(rt);
    await this.processes.onIdle();
  }

  // ---- the sweep's findings -----------------------------------------------------------------------------------

  /**
   * Called with each sweep's session list and the agents that were running when it started: crashed agents are
   * restarted with backoff (crash-recovery.ts), and agents idle past their idle_suspend_after are parked.
   */
  onSweep(sessions: readonly SessionInfo[], swept: readonly string[]): void {
    this.crashes.sweep(sessions, swept);
    const idle = idleToPark(this.runtimes.running(), {
      record: (agent) => this.deps.store.get(agent),
      activity: this.deps.activity,
      config: this.deps.config(),
      home: this.deps.paths.home,
      now: this.deps.clock.now(),
    });
    for (const agent of idle) void this.park(agent);
  }

  // ---- helpers ------------------------------------------------------------------------------------------------

  /**
   * Halts the agent and boots it again as `next`, saying it stopped and spawned: `update` is stored while it is down;
   * a `fresh` start carries no conversation over and counts its restarts from zero.
   */
  private async relaunch(
    name: string,
    next: AgentRecord,
    opts: { fresh?: boolean; update?: Parameters<AgentStore['update']>[1] } = {},
  ): Promise<Agent> {
    this.deps.launcher.check(next);
    await this.processes.halt(name);
    this.deps.bus.publish('agent_stopped', { agent: name, wake_on_message: false });
    if (opts.fresh) this.runtimes.delete(name);
    if (opts.update) this.deps.store.update(name, opts.update);
    await this.processes.boot(next, !opts.fresh);
    const agent = this.get(name);
    this.deps.bus.publish('agent_spawned', { agent });
    return agent;
  }

  /**
   * The agent's record, refused when it is the dormant record of an agent that moved away (it never runs here again)
   * or parked by a move under way (it runs again when the move resumes it).
   */
  private here(name: string): AgentRecord {
    const moved = this.movedError(name);
    if (moved) throw moved;
    return this.unheld(name);
  }

  /** The agent's record, refused while a move has it parked: a rename or a relaunch would pull it from under the move. */
  private unheld(name: string): AgentRecord {
    const held = this.heldError(name);
    if (held) throw held;
    return this.record(name);
  }

  /** A worktree agent's `leo/<from>` follows its new name while unpushed; a branch that stays is said in its thread. */
  private async renameBranch(record: AgentRecord, to: string): Promise<void> {
    if (!record.workspace || !record.branch) return;
    const { branch, note } = await this.deps.worktrees.renameBranch(record.workspace, record.branch, record.name, to);
    if (branch !== record.branch) this.deps.store.update(to, { branch });
    if (note) this.deps.note(to, note);
  }

  /** Whether an agent other than `except` works in `dir` or below it: two agents never share a tree. */
  private worksIn(dir: string, except: string): boolean {
    const { config, paths } = this.deps;
    return this.deps.store
      .list()
      .some((r) => r.name !== except && isInside(dir, resolveAgent(r, config(), paths.home).workspace));
  }

  private serial<T>(name: string, fn: () => Promise<T>): Promise<T> {
    return this.processes.serial(name, fn);
  }
}
