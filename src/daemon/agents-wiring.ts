import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { agentMessageDelivery, messageAnnouncer, RecentMessages } from '../agents/agent-messages.js';
import { agentRoutes } from '../agents/agent-routes.js';
import { AgentStore } from '../agents/agent-store.js';
import { hookRoutes } from '../agents/hook-routes.js';
import { HookRouter } from '../agents/hook-router.js';
import { Launcher } from '../agents/launcher.js';
import { messageRoutes } from '../agents/message-routes.js';
import { Supervisor } from '../agents/lifecycle/supervisor.js';
import { Workspaces } from '../agents/workspaces.js';
import { Worktrees } from '../agents/worktrees/worktrees.js';
import type { PendingLimit } from '../chat/threads/pending-limit.js';
import type { ThreadNotes } from '../chat/threads/thread-notes.js';
import type { ChatStore } from '../chat/threads/chat-store.js';
import type { ConfigChanges } from '../config/watch.js';
import type { Config, Harness } from '../config/schema.js';
import type { Clock } from '../core/clock.js';
import { ExecHost } from '../core/exec-host.js';
import type { LeoPaths } from '../core/home.js';
import { LEO_BIN } from '../core/leo-bin.js';
import type { Logger } from '../core/logger.js';
import { tmuxAgentTerminal, watchStartup } from '../delivery/agent-terminal.js';
import { Deliverer } from '../delivery/deliverer.js';
import { tmuxPasteRoute } from '../delivery/tmux-paste.js';
import type { EventBus } from '../events/bus.js';
import type { FeatureSet } from '../core/features.js';
import { screenReader } from '../harnesses/screen.js';
import type { NeedsInputAlerts } from '../observe/needs-input.js';
import { ActivitySweeper } from '../observe/activity-sweeper.js';
import { ActivityTracker, activityEvent } from '../observe/activity-tracker.js';
import type { WorkerPool } from '../pool/worker-pool.js';
import { moveAgentRows } from '../store/agent-rows.js';
import type { Database } from '../store/database.js';
import { Tmux } from '../tmux/tmux.js';
import { MoveHolds } from '../hosts/move/side/move-holds.js';
import type { Domain } from './domain.js';

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
  config(): Config;
  /** Each reload: the agents' appearances are published again (a template's emoji or colour may have changed). */
  configChanges: ConfigChanges;
  /** The TCP base URL agents reach Leo on (their MCP endpoint lives under it). */
  baseUrl(): string;
  /** Each agent's needs_input alert: raised and cleared by delivery, read by the snapshot. */
  needsInput: Pick<NeedsInputAlerts, 'raise' | 'clear'>;
}

/** How long a delivery waits for an agent's input box (a dialog someone must answer at the terminal, a slow start). */
export const INPUT_READY_TIMEOUT_MS = 5 * 60_000;

/**
 * Builds the agents domain (store, tmux, launcher, supervisor, activity tracking, the typing lane) and registers its
 * hook and message routes. Returns its services and what the daemon's start and stop sequence drives.
 */
export async function wireAgents(d: AgentsWiringDeps) {
  const tmuxSocket = path.join(d.paths.stateDir, 'tmux.sock');
  // tmux is driven over one control-mode client and git starts from a helper process: a fork of the daemon per call
  // was what stalled its event loop.
  const programs = new ExecHost();
  const tmux = new Tmux({ socketPath: tmuxSocket, control: true });
  const store = new AgentStore(d.db);
  // A renamed agent keeps its thread, reminders, chat sessions and reply capture: their rows move in the rename's
  // transaction, first (the other domains follow as they are built, chat's attachment files last).
  store.onRename((from, to) => moveAgentRows(d.db, from, to));
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
    launched: (agent, harness) =>
      watchStartup(tmux, agent, screenReader(harness), (err) =>
        d.logger.debug({ agent, err: err.message }, 'start-up screen watch ended'),
      ),
    note: (agent, text) => d.notes.note(agent, text),
  });
  const holds = new MoveHolds(path.join(d.paths.stateDir, 'moves'));
  const supervisor = new Supervisor({
    held: (name) => holds.isHeld(name),
    store,
    tmux,
    launcher,
    worktrees: new Worktrees(programs.exec, path.join(d.paths.home, 'worktrees')),
    bus: d.bus,
    clock: d.clock,
    logger: d.logger,
    paths: d.paths,
    config: d.config,
    activity: tracker,
    note: (agent, text) => d.notes.note(agent, text),
  });
  d.configChanges.on('change', () => supervisor.republishAppearances());
  // An agent removed while a move held it takes the hold with it: a later agent of that name is not held.
  supervisor.onGone((agent) => {
    const hold = store.get(agent) ? null : holds.of(agent);
    if (hold) holds.release(hold.id);
  });
  const sweeper = new ActivitySweeper({
    clock: d.clock,
    pool: d.pool.background,
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
  const deliverer = new Deliverer(
    [
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
    ],
    d.logger,
  );
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
  await d.app.register(messageRoutes, {
    announce: announceMessage,
    deliver: agentMessageDelivery({ agents: supervisor, pending: d.pending, deliverer }),
  });
  /** The agents' terminals as permission prompts answer them. */
  const terminal = tmuxAgentTerminal(tmux, (agent) =>
    supervisor.has(agent) ? screenReader(supervisor.get(agent).harness as Harness) : null,
  );

  return {
    supervisor,
    holds,
    store,
    terminal,
    sweeper,
    tmux,
    exec: programs.exec,
    deliverer,
    hooks,
    recent,
    announceMessage,
    async start(): Promise<void> {
      await supervisor.restore();
      sweeper.start();
    },
    async stop(): Promise<void> {
      // Before chat's drain (the next domain to stop): a delivery waiting on a parked agent lets go, still pending.
      holds.close();
      await sweeper.stop();
      await supervisor.close();
      tmux.close();
      programs.close();
    },
  };
}

/**
 * /api/v1/agents, registered once chat exists: a spawn's first prompt is the agent's first chat message, typed when
 * the agent is ready.
 */
export async function wireAgentRoutes(d: {
  app: FastifyInstance;
  supervisor: Supervisor;
  configBroken(): boolean;
  deliverPrompt(agent: string, prompt: string): void;
}): Promise<Domain> {
  const { supervisor, configBroken, deliverPrompt } = d;
  await d.app.register(agentRoutes, { supervisor, configBroken, deliverPrompt });
  return {};
}
