import type { FastifyInstance } from 'fastify';
import type { RecentMessages } from '../agents/agent-messages.js';
import type { AgentStore } from '../agents/agent-store.js';
import type { Supervisor } from '../agents/lifecycle/supervisor.js';
import type { Config } from '../config/schema.js';
import type { Clock } from '../core/clock.js';
import type { LeoPaths } from '../core/home.js';
import type { EventBus } from '../events/bus.js';
import type { ActivitySweeper } from '../observe/activity-sweeper.js';
import type { NeedsInputAlerts } from '../observe/needs-input.js';
import { stateRoutes } from '../observe/state-routes.js';
import type { TurnErrors } from '../observe/turn-errors.js';
import type { ChangeSummaries } from '../review/summary/change-summaries.js';
import { taskViews } from '../tasks/task-view.js';
import type { HubFanIn } from '../hosts/relay/hub-fan-in.js';
import type { UsageMeter } from '../usage/usage-meter.js';
import { readerAudience } from '../wire/event-types.js';
import type { Task, TaskRun } from '../wire/fleet.js';
import type { Domain } from './domain.js';

export interface ObserveWiringDeps {
  app: FastifyInstance;
  bus: EventBus;
  clock: Clock;
  paths: LeoPaths;
  config(): Config;
  supervisor: Supervisor;
  agents: AgentStore;
  sweeper: ActivitySweeper;
  recent: RecentMessages;
  /** Task runs for the snapshot: recent_runs and each task's last_run_at. */
  runs: { recent(): TaskRun[]; lastRunAt(task: string): number | null };
  /** Each agent's usage sums. */
  usage: Pick<UsageMeter, 'totals'>;
  /** Each agent's failed last turn: set by chat's reply capture. */
  turnErrors: TurnErrors;
  /** Each agent's needs_input alert: raised and cleared by delivery. */
  needsInput: NeedsInputAlerts;
  /** Each agent's change summary: looked at by review. */
  changes: Pick<ChangeSummaries, 'of'>;
  /** On a hub, the fleets of the hosts it follows (issue 31), listed after this daemon's own. */
  followed: Pick<HubFanIn, 'agents' | 'tasks' | 'recentRuns' | 'recentMessages' | 'entries'>;
}

/**
 * The fleet as /api/v1/state shows it, over the agents domain; an agent's failed turn and needs_input alert go with
 * it (gone) and follow its rename.
 */
export async function wireObserve(d: ObserveWiringDeps): Promise<Domain & { tasks(): Task[] }> {
  d.supervisor.onGone((agent) => {
    d.turnErrors.clear(agent);
    d.needsInput.clear(agent);
  });
  d.agents.onRename((from, to) => {
    d.turnErrors.renamed(from, to);
    d.needsInput.renamed(from, to);
  });
  // Every task as /state shows it, and as the task screens' routes (tasks-wiring) list it.
  const tasks = () =>
    taskViews(
      d.config(),
      d.paths.home,
      d.clock.now(),
      (task) => d.runs.lastRunAt(task),
      (a) => d.supervisor.resolved(a),
    );
  await d.app.register(stateRoutes, {
    clock: d.clock,
    version: () => [d.bus.stats().published, d.sweeper.stats().sweeps, d.sweeper.stats().turnEnds, d.config()],
    seq: (principal) => d.bus.lastSeq(readerAudience(principal)),
    agents: () => [
      ...d.supervisor.list().map((a) => {
        const changes = d.changes.of(a.name);
        return {
          ...a,
          usage: d.usage.totals(a.name),
          turn_error: d.turnErrors.of(a.name),
          needs_input: d.needsInput.of(a.name),
          ...(changes === undefined ? {} : { changes }),
        };
      }),
      ...d.followed.agents(),
    ],
    tasks: () => [...tasks(), ...d.followed.tasks()],
    recentRuns: () => [...d.runs.recent(), ...d.followed.recentRuns()],
    recentMessages: () => [...d.recent.list(), ...d.followed.recentMessages()],
    hosts: () => {
      const hosts = d.followed.entries();
      return hosts.length > 0 ? hosts : undefined;
    },
  });
  return { tasks };
}
