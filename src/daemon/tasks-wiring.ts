import type { FastifyInstance } from 'fastify';
import type { ChatService } from '../chat/threads/chat-service.js';
import type { Deliverer } from '../delivery/deliverer.js';
import type { HookRouter } from '../agents/hook-router.js';
import type { Supervisor } from '../agents/lifecycle/supervisor.js';
import type { Config } from '../config/schema.js';
import type { ConfigChanges } from '../config/watch.js';
import type { Clock } from '../core/clock.js';
import type { LeoPaths } from '../core/home.js';
import { LEO_BIN } from '../core/leo-bin.js';
import type { Logger } from '../core/logger.js';
import type { FeatureSet } from '../core/features.js';
import type { Task } from '../wire/fleet.js';
import { PersistentRuns } from '../tasks/persistent-runs.js';
import type { RunPublisher } from '../tasks/run-publisher.js';
import { TaskCards } from '../tasks/task-cards.js';
import { taskRoutes } from '../tasks/task-routes.js';
import { runPaths } from '../tasks/task-launch.js';
import { TaskRunner } from '../tasks/task-runner.js';
import type { TurnMeter } from '../tasks/run-usage.js';
import { TaskScheduler } from '../tasks/scheduler.js';
import { adapterOf } from '../harnesses/index.js';

export interface TasksWiringDeps {
  app: FastifyInstance;
  clock: Clock;
  logger: Logger;
  paths: LeoPaths;
  features: FeatureSet;
  agentToken: string;
  config(): Config;
  /** Each reload: the schedule follows leo.yaml's tasks. */
  configChanges: ConfigChanges;
  baseUrl(): string;
  publisher: RunPublisher;
  supervisor: Supervisor;
  deliverer: Deliverer;
  chat: ChatService;
  hooks: HookRouter;
  /** Every task as /state describes it. */
  tasks(): Task[];
  /** Meters headless runs' turns (the usage meter). */
  usage: TurnMeter;
}

/**
 * Builds the tasks domain over the agents and chat domains: the cron scheduler, the runner (oneshot processes and
 * persistent turns), task cards in the owner's thread, and the task routes. Returns what start, reload and stop drive.
 */
export async function wireTasks(d: TasksWiringDeps) {
  const cards = new TaskCards({
    config: d.config,
    home: d.paths.home,
    chatEnabled: () => d.config().chat.enabled,
    agents: () => d.supervisor.list().map((a) => ({ name: a.name, workspace: a.workspace })),
    post: (agent, p) => d.chat.post(agent, p),
    note: (agent, text) => d.chat.note(agent, text),
  });
  const persistent = new PersistentRuns({
    config: d.config,
    clock: d.clock,
    agentExists: (a) => d.supervisor.has(a),
    spawn: (req) => d.supervisor.spawn(req),
    start: (a) => d.supervisor.start(a),
    isRunning: (a) => d.supervisor.isRunning(a),
    deliver: (a, text) => d.deliverer.deliver(a, text),
    reportsTurnEnd: (a) => adapterOf(d.supervisor.list().find((x) => x.name === a)?.harness)?.reportsTurnEnd === true,
    ownerOf: (task) => cards.ownerOf(task).agent,
  });
  const runner = new TaskRunner({
    config: d.config,
    paths: d.paths,
    clock: d.clock,
    logger: d.logger,
    publisher: d.publisher,
    cards,
    launch: { baseUrl: d.baseUrl, agentToken: d.agentToken, leoBin: LEO_BIN, nodeBin: process.execPath },
    persistent: (task, runId, signal) => persistent.run(task, runId, signal),
    agentValues: (a) => d.supervisor.resolved(a),
    usage: d.usage,
  });
  const scheduler = new TaskScheduler({
    clock: d.clock,
    tasks: () => d.config().tasks,
    fire: (task) => void runner.fire(task),
  });
  d.configChanges.on('change', () => scheduler.reschedule());
  await d.app.register(taskRoutes, {
    clock: d.clock,
    publisher: d.publisher,
    cards,
    runner,
    taskExists: (name) => name in d.config().tasks,
    tasks: d.tasks,
    runLogPath: (task, runId) => runPaths(d.paths, task, runId).logPath,
  });
  d.hooks.on('stop', ({ agent }) => {
    persistent.turnEnded(agent);
    return {};
  });
  d.features.add('tasks', 'task_runs');
  return {
    /** The persistent task run whose turn is in flight in `agent`, with its task's owner (tool calls file under it). */
    taskTurn: (agent: string) => {
      const turn = persistent.inFlight(agent);
      return turn && { ...turn, owner: cards.ownerOf(turn.task).agent };
    },
    taskOutput: (thread: string, task: string, runId: string | undefined) => cards.beforeOutput(thread, task, runId),
    start: () => scheduler.reschedule(),
    /** Before the server closes: no more firings, and the runs under way end. */
    async release(): Promise<void> {
      scheduler.close();
      await runner.close();
    },
  };
}
