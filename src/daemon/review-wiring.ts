import type { FastifyInstance } from 'fastify';
import type { AgentStore } from '../agents/agent-store.js';
import type { HookRouter } from '../agents/hook-router.js';
import type { Supervisor } from '../agents/lifecycle/supervisor.js';
import type { ThreadNotes } from '../chat/threads/thread-notes.js';
import type { Clock } from '../core/clock.js';
import type { FeatureSet } from '../core/features.js';
import type { Exec } from '../core/exec.js';
import type { Logger } from '../core/logger.js';
import type { EventBus } from '../events/bus.js';
import type { WorkerPool } from '../pool/worker-pool.js';
import { ChangeActions } from '../review/actions/change-actions.js';
import { changeActionRoutes } from '../review/actions/change-action-routes.js';
import { changesRoutes } from '../review/changes-routes.js';
import { ChangeSummaries } from '../review/summary/change-summaries.js';
import { WorkspaceChanges } from '../review/workspace-changes.js';
import type { Domain } from './domain.js';

/**
 * The review of an agent's workspace changes (git status and diffs) and the writes on them (commit, discard, push,
 * pull request), git on the agents' helper process with the daemon's environment (its credentials, its `gh`), each
 * write leaving a note in the agent's thread; and each agent's change summary for the fleet, looked at on the pool and
 * published as agent_changes.
 */
export async function wireReview(d: {
  app: FastifyInstance;
  exec: Exec;
  env: NodeJS.ProcessEnv;
  supervisor: Supervisor;
  agents: Pick<AgentStore, 'onRename'>;
  hooks: HookRouter;
  notes: ThreadNotes;
  bus: EventBus;
  pool: WorkerPool;
  clock: Clock;
  logger: Logger;
  features: FeatureSet;
}): Promise<Domain & { summaries: ChangeSummaries }> {
  const changes = new WorkspaceChanges(d.exec);
  const workspaceOf = (agent: string) => (d.supervisor.has(agent) ? d.supervisor.get(agent).workspace : null);
  await d.app.register(changesRoutes, { changes, workspaceOf });
  const summaries = new ChangeSummaries({
    clock: d.clock,
    pool: d.pool.background,
    // A moved agent's dormant record keeps the workspace it had here; its changes are the other host's to say.
    agents: () =>
      d.supervisor
        .list()
        .filter((a) => a.moved_to === undefined)
        .map((a) => ({ name: a.name, workspace: a.workspace, running: a.status !== 'stopped' })),
    publish: (agent, changes) => d.bus.publish('agent_changes', { agent, changes }),
    onError: (err) => d.logger.warn({ err }, 'change summary look failed'),
  });
  await d.app.register(changeActionRoutes, {
    actions: new ChangeActions(d.exec, changes, d.env),
    workspaceOf,
    busy: (agent) => d.supervisor.get(agent).activity === 'working',
    note: (agent, text) => void d.notes.note(agent, text),
    changed: (agent) => summaries.nudge(agent),
  });
  d.supervisor.onGone((agent) => summaries.gone(agent));
  d.agents.onRename((from, to) => summaries.renamed(from, to));
  // A turn's end is when an agent's edits are done: its summary follows at once.
  d.hooks.on('stop', ({ agent }) => {
    summaries.nudge(agent);
    return {};
  });
  d.features.add('agent_changes');
  return { summaries, start: () => summaries.start(), stop: () => summaries.stop() };
}
