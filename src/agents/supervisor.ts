import type { Config, Harness } from '../config/schema.js';
import { KeyedQueue } from '../core/keyed-queue.js';
import type { Clock, TimerHandle } from '../core/clock.js';
import type { LeoPaths } from '../core/home.js';
import type { Logger } from '../core/logger.js';
import { rfc3339 } from '../core/time.js';
import type { EventBus } from '../events/bus.js';
import type { ActivitySnapshot } from '../observe/activity-tracker.js';
import type { Agent, AgentStatus, Appearance } from '../wire/fleet.js';
import type { SessionInfo } from '../tmux/list-format.js';
import { AgentError, stayingDown } from './agent-error.js';
import type { AgentRecord } from './agent-record.js';
import type { AgentStore } from './agent-store.js';
import { MAX_CONSECUTIVE_CRASHES, crashDelay, nextConsecutive } from './crash-backoff.js';
import { exitDetail, paneLines } from '../harnesses/screen.js';
import type { AgentLauncher } from './launcher.js';
import { displayName, resolveAgent, resolveAppearance, type ResolvedAgent } from './resolve.js';
import { FormerNames } from './former-names.js';
import { agentOfSession, sessionName } from './session-name.js';

/** What the supervisor asks of tmux beyond starting sessions (the launcher does that). */
export interface SessionControl {
  hasSession(name: string): Promise<boolean>;
  /** The pane's text with `lines` of history: what an exited harness said last. */
  capturePane(name: string, lines?: number): Promise<string>;
  killSession(name: string): Promise<boolean>;
  renameSession(from: string, to: string): Promise<void>;
  listSessions(): Promise<SessionInfo[]>;
}

export type ActivityView = ActivitySnapshot;

/** The activity tracker as the supervisor sees it: read per agent, told when an agent leaves or changes name. */
export interface ActivityBook {
  snapshot(agent: string): ActivityView;
  forget(agent: string): void;
  rename(from: string, to: string): void;
}

export interface SupervisorDeps {
  store: AgentStore;
  tmux: SessionControl;
  launcher: AgentLauncher;
  bus: EventBus;
  clock: Clock;
  logger: Logger;
  paths: LeoPaths;
  config(): Config;
  activity: ActivityBook;
  /** Says something in an agent's thread: why the daemon stopped it. */
  note(agent: string, text: string): void;
}

interface Runtime {
  status: AgentStatus;
  restarts: number;
  consecutiveCrashes: number;
  startedAt: number | null;
  retry: TimerHandle | null;
}

export interface SpawnRequest {
  name: string;
  template: string;
  repo?: string | undefined;
  branch?: string | undefined;
  base?: string | undefined;
  environments?: string[] | undefined;
  env?: Record<string, string> | undefined;
  workspace?: string | undefined;
  /** Overrides of the template's model and harness (a persistent task's own, for its agent). */
  model?: string | undefined;
  harness?: Harness | undefined;
}

/**
 * Owns every agent's lifecycle: the durable record, the live tmux session, and the in-memory runtime (status,
 * restarts, start time). Operations on one agent run one at a time; each publishes exactly the events the
 * observability spec describes for it.
 */
export class Supervisor {
  private readonly runtimes = new Map<string, Runtime>();
  private readonly queues = new KeyedQueue();
  private readonly goneListeners: ((agent: string) => void)[] = [];
  private readonly formerNames = new FormerNames();
  /**
   * Agents stored as active when the daemon started, until restore() has listed tmux: each reports `restoring`
   * (never `stopped`), whether it turns out live or has to be started again.
   */
  private readonly unrestored: Set<string>;

  constructor(private readonly deps: SupervisorDeps) {
    this.unrestored = new Set(deps.store.list().flatMap((r) => (r.state === 'active' ? [r.name] : [])));
  }

  /** Told when an agent leaves for good (stop, remove): its open asks close as agent_gone. */
  onGone(listener: (agent: string) => void): void {
    this.goneListeners.push(listener);
  }

  // ---- reading ------------------------------------------------------------------------------------------------

  list(): Agent[] {
    return this.deps.store.list().map((r) => this.view(r));
  }

  get(name: string): Agent {
    return this.view(this.record(name));
  }

  /**
   * The agent a hook or tool call naming itself `name` comes from: after a live rename the harness still calls itself
   * by the old name (its LEO_AGENT) until it is launched again.
   */
  currentName(name: string): string {
    return this.has(name) ? name : this.formerNames.resolve(name);
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
    return this.runtimes.get(name)?.status === 'running';
  }

  /** Stopped on purpose (by its owner, or by the daemon after it kept failing): only a start brings it back. */
  staysDown(name: string): boolean {
    return !this.isRunning(name) && this.deps.store.get(name)?.state === 'stopped';
  }

  /** Every running agent's session, with its harness (the sweep reads its pane by it). */
  runningSessions(): { agent: string; session: string; harness: Harness }[] {
    const config = this.deps.config();
    const records = new Map(this.deps.store.list().map((r) => [r.name, r]));
    return [...this.runtimes]
      .filter(([, rt]) => rt.status === 'running')
      .map(([agent]) => {
        const record = records.get(agent);
        const harness = record ? resolveAgent(record, config, this.deps.paths.home).harness : config.defaults.harness;
        return { agent, session: sessionName(agent), harness };
      });
  }

  // ---- boot ---------------------------------------------------------------------------------------------------

  /**
   * Brings the fleet back after a daemon start. Agents stored as active are `restoring` from the supervisor's first
   * answer on; once tmux is listed, live sessions are adopted untouched (`running`) and the others are started. One
   * that cannot start is stopped on purpose (it stays down until started). Entering the state is announced like
   * leaving it, so a consumer connected during the restore sees every status the snapshot reports.
   */
  async restore(): Promise<void> {
    const restoring = () => this.deps.store.list().filter((r) => this.runtime(r.name).status === 'restoring');
    for (const record of restoring()) this.stateChanged(record.name);
    // Agent → when its live session was created: an adopted agent keeps the start it had under the last daemon.
    const live = new Map(
      (await this.deps.tmux.listSessions())
        .filter((s) => !s.paneDead)
        .map((s) => [agentOfSession(s.name), s.created === null ? null : s.created * 1000]),
    );
    this.unrestored.clear();
    const toStart: AgentRecord[] = [];
    for (const record of restoring()) {
      if (live.has(record.name)) {
        const rt = this.runtime(record.name);
        rt.status = 'running';
        rt.startedAt = live.get(record.name) ?? this.deps.clock.now();
        this.stateChanged(record.name);
      } else toStart.push(record);
    }
    await Promise.all(
      toStart.map((record) =>
        this.serial(record.name, async () => {
          // Stopped, removed or started by someone else while it waited its turn.
          if (this.runtimes.get(record.name)?.status !== 'restoring') return;
          await this.deps.tmux.killSession(sessionName(record.name));
          try {
            await this.launch(record, { resume: true });
            this.markRunning(record.name);
            this.stateChanged(record.name);
          } catch (err) {
            this.deps.logger.error(
              { agent: record.name, err: (err as Error).message },
              'restore failed; agent stopped',
            );
            this.giveUp(record.name, `it could not be restarted when the daemon started: ${(err as Error).message}`);
          }
        }),
      ),
    );
  }

  // ---- operations ---------------------------------------------------------------------------------------------

  async spawn(req: SpawnRequest): Promise<Agent> {
    const config = this.deps.config();
    if (!config.templates[req.template])
      throw new AgentError('invalid', `template "${req.template}" is not defined in leo.yaml`, 'template');
    this.assertEnvironments(req.environments, config);
    if (this.deps.store.get(req.name)) throw new AgentError('conflict', `an agent named "${req.name}" already exists`);
    return this.serial(req.name, async () => {
      const record: AgentRecord = {
        name: req.name,
        template: req.template,
        repo: req.repo ?? null,
        branch: req.branch ?? null,
        workspace: req.workspace ?? null,
        model: req.model ?? null,
        harness: req.harness ?? null,
        environments: req.environments?.length ? req.environments : null,
        env: req.env && Object.keys(req.env).length ? req.env : null,
        session_id: null,
        emoji: null,
        color: null,
        moved_to: null,
        moved_at: null,
        state: 'active',
        stop_reason: null,
        created_at: rfc3339(this.deps.clock.now()),
      };
      this.deps.launcher.check(record);
      this.deps.store.insert(record);
      this.formerNames.taken(record.name);
      try {
        const workspace = resolveAgent(record, config, this.deps.paths.home).workspace;
        await this.deps.launcher.prepareWorkspace(workspace, record, req.base);
        await this.launch(record, { resume: false });
      } catch (err) {
        this.deps.store.remove(record.name);
        this.runtimes.delete(record.name);
        throw err;
      }
      this.markRunning(record.name);
      const agent = this.get(record.name);
      this.deps.bus.publish('agent_spawned', { agent });
      return agent;
    });
  }

  /** Stops on purpose: it stays down until started, and its open asks close. */
  stop(name: string): Promise<Agent> {
    return this.serial(name, async () => {
      this.record(name);
      await this.halt(name);
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
      await this.halt(name);
      this.deps.store.setState(name, 'parked');
      this.deps.bus.publish('agent_stopped', { agent: name, wake_on_message: true });
      return this.get(name);
    });
  }

  start(name: string): Promise<Agent> {
    return this.serial(name, async () => {
      const record = this.record(name);
      if (this.runtime(name).status === 'running' && (await this.deps.tmux.hasSession(sessionName(name))))
        return this.get(name);
      await this.boot(record, true);
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
    if (this.runtime(name).status === 'running') return false;
    if (this.staysDown(name)) throw new AgentError('conflict', stayingDown(name));
    await this.start(name);
    return true;
  }

  restart(name: string): Promise<Agent> {
    return this.serial(name, async () => {
      const record = this.record(name);
      this.deps.launcher.check(record);
      await this.halt(name);
      this.deps.bus.publish('agent_stopped', { agent: name, wake_on_message: false });
      await this.boot(record, true);
      const agent = this.get(name);
      this.deps.bus.publish('agent_spawned', { agent });
      return agent;
    });
  }

  /** A fresh start: same identity, no conversation carried over, restart count back to zero. */
  reset(name: string): Promise<Agent> {
    return this.serial(name, async () => {
      const record = this.record(name);
      this.deps.launcher.check(record);
      await this.halt(name);
      this.deps.bus.publish('agent_stopped', { agent: name, wake_on_message: false });
      this.runtimes.delete(name);
      this.deps.store.update(name, { session_id: null });
      await this.boot({ ...record, session_id: null }, false);
      const agent = this.get(name);
      this.deps.bus.publish('agent_spawned', { agent });
      return agent;
    });
  }

  remove(name: string): Promise<void> {
    return this.serial(name, async () => {
      this.record(name);
      await this.halt(name);
      this.deps.store.remove(name);
      this.runtimes.delete(name);
      this.deps.activity.forget(name);
      this.deps.bus.publish('agent_stopped', { agent: name, wake_on_message: false });
      for (const l of this.goneListeners) l(name);
    });
  }

  /**
   * Renames the agent, live or stopped, and its thread with it (the store moves every row keyed by its name in one
   * transaction). Nothing is published until the rename has happened: a failed tmux rename or store write shows no
   * departure. A rename during crash back-off carries the pending restart over to the new name.
   */
  rename(from: string, to: string): Promise<Agent> {
    return this.serial(from, async () => {
      const record = this.record(from);
      if (this.deps.store.get(to)) throw new AgentError('conflict', `an agent named "${to}" already exists`);
      const rt = this.runtime(from);
      const live = rt.status === 'running' && (await this.deps.tmux.hasSession(sessionName(from)));
      if (live) await this.deps.tmux.renameSession(sessionName(from), sessionName(to));
      try {
        this.deps.store.rename(from, to);
      } catch (err) {
        if (live) await this.deps.tmux.renameSession(sessionName(to), sessionName(from)).catch(() => {});
        throw err;
      }
      // Starting is crash back-off: a relaunch is due (on a timer, or already queued under the old name, where it
      // would find no record). It is armed again under the new name.
      const backingOff = rt.status === 'starting';
      rt.retry?.cancel();
      rt.retry = null;
      this.runtimes.delete(from);
      this.runtimes.set(to, rt);
      if (live) this.formerNames.renamedLive(from, to);
      else {
        this.formerNames.ended(from);
        this.formerNames.taken(to);
      }
      this.deps.activity.rename(from, to);
      this.deps.bus.publish('agent_stopped', { agent: from, wake_on_message: false });
      if (live) {
        // The live path reports from in-memory process state, which carries none of these (spec: rename).
        const degraded: Agent = {
          ...this.view({ ...record, name: to }),
          template: '',
          repo: '',
          branch: '',
          model: '',
          workspace: '',
          harness: '',
        };
        delete degraded.appearance;
        this.deps.bus.publish('agent_spawned', { agent: degraded });
        this.appearanceChanged(to);
      } else {
        this.deps.bus.publish('agent_spawned', { agent: this.get(to) });
      }
      if (backingOff) this.scheduleRelaunch(to, crashDelay(rt.consecutiveCrashes));
      return this.get(to);
    });
  }

  setTemplate(name: string, template: string): Promise<Agent> {
    return this.serial(name, async () => {
      const record = this.record(name);
      if (!this.deps.config().templates[template])
        throw new AgentError('invalid', `template "${template}" is not defined in leo.yaml`, 'template');
      const next = { ...record, template };
      this.deps.launcher.check(next);
      await this.halt(name);
      this.deps.bus.publish('agent_stopped', { agent: name, wake_on_message: false });
      this.deps.store.update(name, { template });
      await this.boot(next, true);
      const agent = this.get(name);
      this.deps.bus.publish('agent_spawned', { agent });
      this.appearanceChanged(name);
      return agent;
    });
  }

  /** Switches the agent's named environments; a live or parked agent restarts and resumes its conversation. */
  setEnvironments(name: string, environments: string[]): Promise<Agent> {
    return this.serial(name, async () => {
      const record = this.record(name);
      this.assertEnvironments(environments, this.deps.config());
      const next = { ...record, environments: environments.length ? environments : null };
      this.deps.store.update(name, { environments: next.environments });
      if (record.state !== 'stopped') {
        await this.halt(name);
        await this.boot(next, true);
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
    for (const rt of this.runtimes.values()) {
      rt.retry?.cancel();
      rt.retry = null;
    }
    await this.queues.onIdle();
  }

  // ---- the sweep's findings -----------------------------------------------------------------------------------

  /**
   * Called with each sweep's session list and the agents that were running when it started (one started mid-sweep
   * may be missing from the list): a running agent whose session died is restarted with backoff.
   */
  onSweep(sessions: readonly SessionInfo[], swept: readonly string[]): void {
    const byName = new Map(sessions.map((s) => [s.name, s]));
    for (const name of swept) {
      const rt = this.runtimes.get(name);
      if (rt?.status !== 'running') continue;
      const s = byName.get(sessionName(name));
      if (!s || s.paneDead) void this.serial(name, () => this.crashed(name, s));
    }
    this.parkIdle();
  }

  private async crashed(name: string, session: SessionInfo | undefined): Promise<void> {
    const rt = this.runtime(name);
    if (rt.status !== 'running') return;
    const ranFor = rt.startedAt === null ? 0 : this.deps.clock.now() - rt.startedAt;
    rt.consecutiveCrashes = nextConsecutive(rt.consecutiveCrashes, ranFor);
    this.deps.logger.warn(
      { agent: name, exit: session?.deadStatus ?? null, signal: session?.deadSignal ?? null, restarts: rt.restarts },
      'agent exited',
    );
    if (rt.consecutiveCrashes >= MAX_CONSECUTIVE_CRASHES) {
      const said = await this.lastWords(name);
      await this.deps.tmux.killSession(sessionName(name));
      this.giveUp(name, `it exited ${rt.consecutiveCrashes} times in a row soon after starting (${said})`);
      return;
    }
    rt.restarts++;
    rt.status = 'starting';
    this.stateChanged(name);
    await this.deps.tmux.killSession(sessionName(name));
    this.scheduleRelaunch(name, crashDelay(rt.consecutiveCrashes));
  }

  /** What an exited harness printed last ("exit 1: No conversation found to continue"), for the stop reason. */
  private async lastWords(name: string): Promise<string> {
    try {
      const read = async () => exitDetail(paneLines(await this.deps.tmux.capturePane(sessionName(name), 200)));
      let said = await read();
      // tmux can mark a pane dead before it has drawn the program's last output: look once more.
      if (/^exit \d+$/.test(said)) said = await new Promise<void>((r) => setTimeout(r, 200)).then(read);
      return said || 'no output';
    } catch {
      return 'its output could not be read';
    }
  }

  /**
   * Stops an agent the daemon cannot keep running, with the reason where its owner looks: its thread, /state and
   * `leo agent list`. It stays down until started again (a chat message starts it; another agent's does not).
   */
  private giveUp(name: string, why: string): void {
    const rt = this.runtime(name);
    rt.retry?.cancel();
    rt.retry = null;
    rt.status = 'stopped';
    rt.consecutiveCrashes = 0;
    this.deps.store.setState(name, 'stopped');
    this.deps.store.update(name, { stop_reason: why });
    this.deps.logger.error({ agent: name, why }, 'agent stopped by the daemon');
    this.deps.note(
      name,
      `${name} was stopped: ${why}. Fix the cause, then start it again (send a message, or \`leo agent start ${name}\`).`,
    );
    this.stateChanged(name);
  }

  private scheduleRelaunch(name: string, delayMs: number): void {
    const rt = this.runtime(name);
    rt.retry?.cancel();
    rt.retry = this.deps.clock.setTimeout(() => {
      rt.retry = null;
      void this.serial(name, async () => {
        const record = this.deps.store.get(name);
        if (!record || rt.status !== 'starting') return;
        try {
          await this.launch(record, { resume: true });
          this.markRunning(name, false);
          this.stateChanged(name);
        } catch (err) {
          rt.consecutiveCrashes++;
          const why = (err as Error).message;
          if (rt.consecutiveCrashes >= MAX_CONSECUTIVE_CRASHES) {
            this.giveUp(name, `it could not be restarted ${rt.consecutiveCrashes} times in a row (${why})`);
            return;
          }
          this.deps.logger.error({ agent: name, err: why }, 'agent restart failed; retrying');
          this.scheduleRelaunch(name, crashDelay(rt.consecutiveCrashes));
        }
      });
    }, delayMs);
  }

  private parkIdle(): void {
    const now = this.deps.clock.now();
    for (const { agent } of this.runningSessions()) {
      const record = this.deps.store.get(agent);
      if (!record) continue;
      const after = resolveAgent(record, this.deps.config(), this.deps.paths.home).idleSuspendAfterMs;
      const a = this.deps.activity.snapshot(agent);
      if (after !== null && a.activity === 'idle' && a.last_activity_at !== null && now - a.last_activity_at >= after)
        void this.park(agent);
    }
  }

  // ---- helpers ------------------------------------------------------------------------------------------------

  private async boot(record: AgentRecord, resume: boolean): Promise<void> {
    await this.deps.tmux.killSession(sessionName(record.name));
    await this.launch(record, { resume });
    this.deps.store.setState(record.name, 'active');
    if (record.stop_reason !== null) this.deps.store.update(record.name, { stop_reason: null });
    this.markRunning(record.name);
  }

  private async halt(name: string): Promise<void> {
    const rt = this.runtime(name);
    rt.retry?.cancel();
    rt.retry = null;
    await this.deps.tmux.killSession(sessionName(name));
    this.formerNames.ended(name);
    rt.status = 'stopped';
  }

  /** Every launch goes here: the new process has the agent's own name, so its former names are done with. */
  private launch(record: AgentRecord, opts: { resume: boolean }): Promise<void> {
    this.formerNames.ended(record.name);
    return this.deps.launcher.launch(record, opts);
  }

  private markRunning(name: string, resetCrashes = true): void {
    const rt = this.runtime(name);
    rt.status = 'running';
    rt.startedAt = this.deps.clock.now();
    if (resetCrashes) rt.consecutiveCrashes = 0;
  }

  /**
   * Says the agent's lifecycle changed, with every field a change can move (a start moves started_at, a crash
   * restarts, the daemon's give-up stop_reason), so a consumer applies it without a refetch; `extra` adds fields the
   * caller changed too.
   */
  private stateChanged(name: string, extra: Partial<Agent> = {}): void {
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

  private appearanceChanged(name: string): void {
    this.deps.bus.publish('agent_appearance_changed', { agent: name, appearance: this.get(name).appearance ?? null });
  }

  private assertEnvironments(names: string[] | undefined, config: Config): void {
    const missing = (names ?? []).filter((n) => !(n in config.environments));
    if (missing.length)
      throw new AgentError('invalid', `environments not defined in leo.yaml: ${missing.join(', ')}`, 'environments');
  }

  private record(name: string): AgentRecord {
    const record = this.deps.store.get(name);
    if (!record) throw new AgentError('not_found', `no agent named "${name}"`);
    return record;
  }

  private runtime(name: string): Runtime {
    let rt = this.runtimes.get(name);
    if (!rt) {
      const status = this.unrestored.has(name) ? 'restoring' : 'stopped';
      rt = { status, restarts: 0, consecutiveCrashes: 0, startedAt: null, retry: null };
      this.runtimes.set(name, rt);
    }
    return rt;
  }

  private serial<T>(name: string, fn: () => Promise<T>): Promise<T> {
    return this.queues.run(name, fn);
  }

  private view(record: AgentRecord, rt: Runtime = this.runtime(record.name)): Agent {
    const config = this.deps.config();
    const r = resolveAgent(record, config, this.deps.paths.home);
    const status = rt.status;
    const wake = status === 'stopped' && record.state === 'parked';
    // last_activity_at outlives a stop ("last seen"); activity and the action are live state, for running agents only.
    const seen = this.deps.activity.snapshot(record.name);
    const a = status === 'running' ? seen : null;
    const appearance: Appearance | undefined = resolveAppearance(
      record,
      { template: r.template, harness: r.harness },
      config.appearance_rules,
    );
    return {
      name: record.name,
      display_name: displayName(record.name),
      template: record.template ?? '',
      repo: record.repo ?? '',
      workspace: r.workspace,
      branch: record.branch ?? '',
      status,
      activity: a?.activity ?? 'unknown',
      model: r.model,
      harness: r.harness,
      restarts: rt.restarts,
      wake_on_message: wake,
      started_at: rt.startedAt === null ? null : rfc3339(rt.startedAt),
      last_activity_at: seen.last_activity_at === null ? null : rfc3339(seen.last_activity_at),
      current_action: a?.activity === 'working' ? a.current_action : null,
      environments: r.environments,
      environments_source: r.environmentsSource,
      environment_error: r.environmentError,
      stop_reason: status === 'stopped' ? record.stop_reason : null,
      ...(appearance ? { appearance } : {}),
      ...(record.moved_to ? { moved_to: record.moved_to } : {}),
      ...(record.moved_at ? { moved_at: record.moved_at } : {}),
    };
  }
}
