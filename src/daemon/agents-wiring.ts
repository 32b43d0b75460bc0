import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { AgentStore } from '../agents/agent-store.js';
import { messageAnnouncer, RecentMessages } from '../agents/agent-messages.js';
import { hookRoutes } from '../agents/hook-routes.js';
import { HookRouter } from '../agents/hook-router.js';
import { Launcher } from '../agents/launcher.js';
import { messageRoutes } from '../agents/message-routes.js';
import { Supervisor } from '../agents/lifecycle/supervisor.js';
import { Workspaces } from '../agents/workspaces.js';
import { configRoutes } from '../config/config-routes.js';
import { LEO_BIN } from '../core/leo-bin.js';
import type { Config } from '../config/schema.js';
import type { Clock } from '../core/clock.js';
import { ExecHost } from '../core/exec-host.js';
import type { LeoPaths } from '../core/home.js';
import type { Logger } from '../core/logger.js';
import { Deliverer } from '../delivery/deliverer.js';
import type { PendingLimit } from '../chat/threads/pending-limit.js';
import { tmuxPasteRoute } from '../delivery/tmux-paste.js';
import { screenReader } from '../harnesses/screen.js';
import { answerStartupDialogs } from '../delivery/startup-dialogs.js';
import { pressKeys } from '../delivery/dialog-answers.js';
import type { AgentTerminal } from '../delivery/permission-dialog.js';
import { sessionName } from '../agents/session-name.js';
import type { ChatStore } from '../chat/threads/chat-store.js';
import type { ThreadNotes } from '../chat/threads/thread-notes.js';
import type { Harness } from '../config/schema.js';
import type { EventBus } from '../events/bus.js';
import type { FeatureSet } from '../events/features.js';
import { readerAudience } from '../wire/event-types.js';
import type { UsageTotals } from '../wire/usage.js';
import type { TurnError } from '../wire/fleet.js';
import type { NeedsInputAlerts } from '../observe/needs-input.js';
import type { TaskRun } from '../wire/fleet.js';
import { ActivitySweeper } from '../observe/activity-sweeper.js';
import { ActivityTracker, activityEvent } from '../observe/activity-tracker.js';
import { stateRoutes } from '../observe/state-routes.js';
import type { WorkerPool } from '../pool/worker-pool.js';
import type { Database } from '../store/database.js';
import { taskViews } from '../tasks/task-view.js';
import { isSessionGone, Tmux } from '../tmux/tmux.js';
import { TerminalWatch } from '../terminal/terminal-watch.js';
import { terminalRoutes } from '../terminal/terminal-routes.js';
import { changesRoutes } from '../review/changes-routes.js';
import { WorkspaceChanges } from '../review/workspace-changes.js';
import type { StreamCaps } from '../events/stream-caps.js';

export interface AgentsWiringDeps {
  app: FastifyInstance;
  db: Database;
  bus: EventBus;
  pool: WorkerPool;
  clock: Clock;
  logger: Logger;
  paths: LeoPaths;
  features: FeatureSet;
  agentToken: string;
  /** Where the agents domain says things in an agent's thread. */
  notes: ThreadNotes;
  /** The thread store (built before this domain): delivery holds its keys while a prompt is open there. */
  threads: ChatStore;
  /** Each agent's undelivered messages, shared with the chat: agent→agent and operator messages count too. */
  pending: PendingLimit;
  /** The long-lived stream caps, shared with /api/v1/events. */
  streams: StreamCaps;
  config(): Config;
  configBroken(): boolean;
  reloadConfig(reason: string): Promise<unknown>;
  /** The TCP base URL agents reach Leo on (their MCP endpoint lives under it). */
  baseUrl(): string;
  /** Task runs for the snapshot: recent_runs and each task's last_run_at. */
  runs: { recent(): TaskRun[]; lastRunAt(task: string): number | null };
  /** Each agent's usage sums, for the snapshot. */
  usage(agent: string): UsageTotals;
  /** Each agent's failed last turn, for the snapshot. */
  turnError(agent: string): TurnError | null;
  /** Each agent's needs_input alert: raised and cleared by delivery, read by the snapshot. */
  needsInput: Pick<NeedsInputAlerts, 'of' | 'raise' | 'clear'>;
}

/** How long a delivery waits for an agent's input box (a dialog someone must answer at the terminal, a slow start). */
export const INPUT_READY_TIMEOUT_MS = 5 * 60_000;

/** How often a watched agent's terminal is captured. */
const TERMINAL_INTERVAL_MS = 100;

/**
 * Builds the agents domain (store, tmux, launcher, supervisor, activity tracking) and registers its routes and those
 * of the observability API it feeds. Returns what the daemon's start and stop sequence drives.
 */
export async function wireAgents(d: AgentsWiringDeps) {
  const tmuxSocket = path.join(d.paths.stateDir, 'tmux.sock');
  // tmux is driven over one control-mode client and git starts from a helper process: a fork of the daemon per call
  // was what stalled its event loop.
  const programs = new ExecHost();
  const tmux = new Tmux({ socketPath: tmuxSocket, control: true });
  const store = new AgentStore(d.db);
  const tracker = new ActivityTracker();
  const launcher = new Launcher({
    tmux,
    workspaces: new Workspaces(programs.exec),
    paths: d.paths,
    baseEnv: process.env,
    config: d.config,
    leo: {
      home: d.paths.home,
      agentToken: d.agentToken,
      leoBin: LEO_BIN,
      nodeBin: process.execPath,
      socketPath: d.paths.socketFile,
      baseUrl: d.baseUrl,
    },
    launched: (agent, harness) => {
      const read = screenReader(harness);
      if (!read) return;
      const session = sessionName(agent);
      void answerStartupDialogs(
        async () => read(await tmux.capturePane(session, 0)),
        (keys) => pressKeys(tmux, session, keys),
      ).catch((err) => d.logger.debug({ agent, err: (err as Error).message }, 'start-up screen watch ended'));
    },
    note: (agent, text) => d.notes.note(agent, text),
  });
  const supervisor = new Supervisor({
    store,
    tmux,
    launcher,
    bus: d.bus,
    clock: d.clock,
    logger: d.logger,
    paths: d.paths,
    config: d.config,
    activity: tracker,
    note: (agent, text) => d.notes.note(agent, text),
  });
  const sweeper = new ActivitySweeper({
    clock: d.clock,
    pool: d.pool,
    tracker,
    tmuxSocket,
    agentsRunning: () => supervisor.runningSessions(),
    publish: (c) => d.bus.publish('agent_activity', activityEvent(c)),
    onObservation: (o, swept) =>
      supervisor.onSweep(
        o.sessions,
        swept.map((s) => s.agent),
      ),
    onError: (err) => d.logger.warn({ err: (err as Error).message }, 'activity sweep failed'),
  });
  const recent = new RecentMessages(d.clock);
  const announceMessage = messageAnnouncer(recent, d.bus);
  const deliverer = new Deliverer([
    tmuxPasteRoute({
      tmux,
      isRunning: (agent) => supervisor.isRunning(agent),
      screenOf: (agent) => screenReader(supervisor.get(agent).harness as Harness),
      note: (agent, text) => d.notes.note(agent, text),
      // No key is pressed into an agent whose permission prompt or questions card is open in its thread.
      openPrompt: (agent) => d.threads.openPrompts(agent)[0]?.text ?? null,
      held: (agent, hold) => (hold ? d.needsInput.raise(agent, hold) : d.needsInput.clear(agent)),
      readyTimeoutMs: INPUT_READY_TIMEOUT_MS,
    }),
  ]);

  // A watched pane is captured this often: a change reaches the app within about this long (the goal is 250 ms p99).
  const captureTerminal = async (agent: string) => ({
    agent,
    ...(await tmux.captureScreen(sessionName(agent))),
    captured_at: new Date(d.clock.now()).toISOString(),
  });
  const terminals = new TerminalWatch({
    capture: captureTerminal,
    isGone: isSessionGone,
    clock: d.clock,
    intervalMs: TERMINAL_INTERVAL_MS,
  });
  d.features.add('agent_environments', 'agent_appearance', 'agent_status_restoring', 'agent_terminal');
  // Chat and tasks subscribe to the hooks they handle as they are built.
  const hooks = new HookRouter({ currentName: (a) => supervisor.currentName(a) });
  hooks.on('session-start', ({ agent, payload }) => {
    if (typeof payload.session_id === 'string') supervisor.noteSession(agent, payload.session_id);
    return {};
  });
  hooks.on('stop', ({ agent }) => {
    sweeper.turnEnded(agent);
    return {};
  });
  await d.app.register(hookRoutes, { router: hooks });
  await d.app.register(terminalRoutes, {
    watch: terminals,
    capture: captureTerminal,
    pressKeys: (agent, keys) => tmux.sendKeys(sessionName(agent), keys),
    exists: (agent) => supervisor.has(agent),
    isRunning: (agent) => supervisor.isRunning(agent),
    clock: d.clock,
    caps: d.streams,
    maxQueued: () => d.config().web.sse_queue,
  });
  await d.app.register(changesRoutes, {
    changes: new WorkspaceChanges(programs.exec),
    workspaceOf: (agent) => (supervisor.has(agent) ? supervisor.get(agent).workspace : null),
  });
  await d.app.register(configRoutes, {
    config: d.config,
    configFile: d.paths.configFile,
    home: d.paths.home,
    configBroken: d.configBroken,
    reload: d.reloadConfig,
  });
  // Every task as /state shows it, and as the task screens' routes (tasks-wiring) list it.
  const tasks = () =>
    taskViews(
      d.config(),
      d.paths.home,
      d.clock.now(),
      (task) => d.runs.lastRunAt(task),
      (a) => supervisor.resolved(a),
    );
  await d.app.register(stateRoutes, {
    clock: d.clock,
    version: () => [d.bus.stats().published, sweeper.stats().sweeps, sweeper.stats().turnEnds, d.config()],
    seq: (principal) => d.bus.lastSeq(readerAudience(principal)),
    agents: () =>
      supervisor.list().map((a) => ({
        ...a,
        usage: d.usage(a.name),
        turn_error: d.turnError(a.name),
        needs_input: d.needsInput.of(a.name),
      })),
    tasks,
    recentRuns: () => d.runs.recent(),
    recentMessages: () => recent.list(),
  });
  await d.app.register(messageRoutes, {
    announce: announceMessage,
    deliver: async (to, text) => {
      supervisor.get(to);
      const release = d.pending.admit(to);
      try {
        await supervisor.wake(to);
        await deliverer.deliver(to, text);
      } finally {
        release();
      }
    },
  });

  /** An agent's terminal as permission prompts answer it: readable for a harness whose screen Leo knows. */
  const terminal: AgentTerminal = {
    look: async (agent) => {
      const read = supervisor.has(agent) ? screenReader(supervisor.get(agent).harness as Harness) : null;
      if (!read) return null;
      try {
        const pane = await tmux.capturePane(sessionName(agent), 0);
        return { pane, screen: read(pane) };
      } catch {
        return null; // no session: the agent stopped
      }
    },
    press: (agent, keys) => pressKeys(tmux, sessionName(agent), keys),
  };

  return {
    supervisor,
    tasks,
    store,
    terminal,
    sweeper,
    tmux,
    deliverer,
    hooks,
    announceMessage,
    async start(): Promise<void> {
      await supervisor.restore();
      sweeper.start();
    },
    async stop(): Promise<void> {
      terminals.close();
      await sweeper.stop();
      await supervisor.close();
      tmux.close();
      programs.close();
    },
  };
}
