import type { Clock } from '../../core/clock.js';
import type { Logger } from '../../core/logger.js';
import { exitDetail, paneLines } from '../../harnesses/screen.js';
import type { SessionInfo } from '../../tmux/list-format.js';
import type { AgentRecord } from '../agent-record.js';
import type { AgentStore } from '../agent-store.js';
import { MAX_CONSECUTIVE_CRASHES, crashDelay, nextConsecutive } from '../crash-backoff.js';
import { agentOfSession, sessionName } from '../../tmux/session-name.js';
import type { AgentProcesses } from './agent-processes.js';
import type { SessionControl } from './fleet-state.js';
import { cancelRetry, type Runtimes } from './runtime.js';

export interface CrashRecoveryDeps {
  store: AgentStore;
  tmux: SessionControl;
  clock: Clock;
  logger: Logger;
  runtimes: Runtimes;
  processes: AgentProcesses;
  /** Says something in an agent's thread: why the daemon stopped it. */
  note(agent: string, text: string): void;
  /** Publishes the agent's lifecycle state (the supervisor's agent_state_changed). */
  stateChanged(name: string): void;
}

/** When to look again at a dead pane that shows its exit status but none of the program's words. */
const LAST_WORDS_LOOKS_MS = [200, 300, 500];

/**
 * Agents whose process went down without being asked to: a running agent whose session died is restarted after a
 * back-off delay, and the agents that were active when the daemon itself stopped are adopted or started again. One
 * that keeps exiting soon after each start, or cannot be started again, is stopped with the reason where its owner
 * looks.
 */
export class CrashRecovery {
  constructor(private readonly deps: CrashRecoveryDeps) {}

  /**
   * Brings the fleet back after a daemon start. Agents stored as active are `restoring` from the supervisor's first
   * answer on; once tmux is listed, live sessions are adopted untouched (`running`) and the others are started. One
   * that cannot start is stopped on purpose (it stays down until started). Entering the state is announced like
   * leaving it, so a consumer connected during the restore sees every status the snapshot reports.
   */
  async restore(): Promise<void> {
    const { store, runtimes } = this.deps;
    const stateChanged = (name: string) => this.deps.stateChanged(name);
    const restoring = () => store.list().filter((r) => runtimes.of(r.name).status === 'restoring');
    for (const record of restoring()) stateChanged(record.name);
    // Agent → when its live session was created: an adopted agent keeps the start it had under the last daemon.
    const live = new Map(
      (await this.deps.tmux.listSessions())
        .filter((s) => !s.paneDead)
        .map((s) => [agentOfSession(s.name), s.created === null ? null : s.created * 1000]),
    );
    runtimes.restored();
    const toStart: AgentRecord[] = [];
    for (const record of restoring()) {
      if (live.has(record.name)) {
        const rt = runtimes.of(record.name);
        rt.status = 'running';
        rt.startedAt = live.get(record.name) ?? this.deps.clock.now();
        stateChanged(record.name);
      } else toStart.push(record);
    }
    await Promise.all(
      toStart.map((record) =>
        this.deps.processes.serial(record.name, async () => {
          // Stopped, removed or started by someone else while it waited its turn.
          if (runtimes.peek(record.name)?.status !== 'restoring') return;
          await this.deps.tmux.killSession(sessionName(record.name));
          try {
            await this.deps.processes.launch(record, { resume: true });
            runtimes.markRunning(record.name);
            stateChanged(record.name);
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

  /**
   * Called with each sweep's session list and the agents that were running when it started (one started mid-sweep
   * may be missing from the list): a running agent whose session died is restarted with backoff.
   */
  sweep(sessions: readonly SessionInfo[], swept: readonly string[]): void {
    const byName = new Map(sessions.map((s) => [s.name, s]));
    for (const name of swept) {
      const rt = this.deps.runtimes.peek(name);
      if (rt?.status !== 'running') continue;
      const s = byName.get(sessionName(name));
      if (!s || s.paneDead) void this.deps.processes.serial(name, () => this.crashed(name, s));
    }
  }

  /**
   * Stops an agent the daemon cannot keep running, with the reason where its owner looks: its thread, /state and
   * `leo agent list`. It stays down until started again (a chat message starts it; another agent's does not).
   */
  giveUp(name: string, why: string): void {
    const rt = this.deps.runtimes.of(name);
    cancelRetry(rt);
    rt.status = 'stopped';
    rt.consecutiveCrashes = 0;
    rt.crashWords = null;
    this.deps.store.setState(name, 'stopped');
    this.deps.store.update(name, { stop_reason: why });
    this.deps.logger.error({ agent: name, why }, 'agent stopped by the daemon');
    this.deps.note(
      name,
      `${name} was stopped: ${why}. Fix the cause, then start it again (send a message, or \`leo agent start ${name}\`).`,
    );
    this.deps.stateChanged(name);
  }

  /** Arms the agent's relaunch after the back-off its consecutive crashes have earned. */
  backOff(name: string): void {
    const rt = this.deps.runtimes.of(name);
    cancelRetry(rt);
    rt.retry = this.deps.clock.setTimeout(() => {
      rt.retry = null;
      void this.deps.processes.serial(name, async () => {
        const record = this.deps.store.get(name);
        if (!record || rt.status !== 'starting') return;
        try {
          await this.deps.processes.launch(record, { resume: true });
          this.deps.runtimes.markRunning(name, false);
          this.deps.stateChanged(name);
        } catch (err) {
          rt.consecutiveCrashes++;
          const why = (err as Error).message;
          if (rt.consecutiveCrashes >= MAX_CONSECUTIVE_CRASHES) {
            this.giveUp(name, `it could not be restarted ${rt.consecutiveCrashes} times in a row (${why})`);
            return;
          }
          this.deps.logger.error({ agent: name, err: why }, 'agent restart failed; retrying');
          this.backOff(name);
        }
      });
    }, crashDelay(rt.consecutiveCrashes));
  }

  private async crashed(name: string, session: SessionInfo | undefined): Promise<void> {
    const rt = this.deps.runtimes.of(name);
    if (rt.status !== 'running') return;
    const ranFor = rt.startedAt === null ? 0 : this.deps.clock.now() - rt.startedAt;
    rt.consecutiveCrashes = nextConsecutive(rt.consecutiveCrashes, ranFor);
    if (rt.consecutiveCrashes === 1) rt.crashWords = null;
    this.deps.logger.warn(
      { agent: name, exit: session?.deadStatus ?? null, signal: session?.deadSignal ?? null, restarts: rt.restarts },
      'agent exited',
    );
    if (rt.consecutiveCrashes >= MAX_CONSECUTIVE_CRASHES) {
      let said = await this.lastWords(name, LAST_WORDS_LOOKS_MS);
      // The pty can lose a dying program's last write (Linux may hang the master up before tmux reads it): an
      // earlier crash of the same program that was drawn says the same thing.
      if (!hasWords(said) && rt.crashWords) said = rt.crashWords;
      await this.deps.tmux.killSession(sessionName(name));
      this.giveUp(name, `it exited ${rt.consecutiveCrashes} times in a row soon after starting (${describe(said)})`);
      return;
    }
    rt.restarts++;
    rt.status = 'starting';
    this.deps.stateChanged(name);
    // One look, kept in case the last crash's words are lost; waiting here would hold the relaunch back.
    const said = await this.lastWords(name, []);
    if (hasWords(said)) rt.crashWords = said;
    await this.deps.tmux.killSession(sessionName(name));
    this.backOff(name);
  }

  /**
   * What an exited harness printed last ("exit 1: No conversation found to continue"), looking again after each of
   * `looks` (ms) while it shows no words; null when the pane cannot be read.
   */
  private async lastWords(name: string, looks: readonly number[]): Promise<string | null> {
    try {
      const read = async () => exitDetail(paneLines(await this.deps.tmux.capturePane(sessionName(name), 200)));
      let said = await read();
      // tmux can mark a pane dead before it has drawn the program's last output (a loaded machine drew it after the
      // 200 ms one look gave it).
      for (const ms of looks) {
        if (hasWords(said)) break;
        said = await new Promise<void>((r) => setTimeout(r, ms)).then(read);
      }
      return said;
    } catch {
      return null;
    }
  }
}

/** An exit detail that has more than the status. */
function hasWords(said: string | null): said is string {
  return said !== null && !/^(exit \d+)?$/.test(said);
}

function describe(said: string | null): string {
  return said === null ? 'its output could not be read' : said || 'no output';
}
