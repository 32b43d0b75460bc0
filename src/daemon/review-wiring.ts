import type { FastifyInstance } from 'fastify';
import type { Supervisor } from '../agents/lifecycle/supervisor.js';
import type { ThreadNotes } from '../chat/threads/thread-notes.js';
import type { Exec } from '../core/exec.js';
import { ChangeActions } from '../review/actions/change-actions.js';
import { changeActionRoutes } from '../review/actions/change-action-routes.js';
import { changesRoutes } from '../review/changes-routes.js';
import { WorkspaceChanges } from '../review/workspace-changes.js';
import type { Domain } from './domain.js';

/**
 * The review of an agent's workspace changes (git status and diffs) and the writes on them (commit, discard, push,
 * pull request), git on the agents' helper process with the daemon's environment (its credentials, its `gh`); each
 * write leaves a note in the agent's thread.
 */
export async function wireReview(d: {
  app: FastifyInstance;
  exec: Exec;
  env: NodeJS.ProcessEnv;
  supervisor: Supervisor;
  notes: ThreadNotes;
}): Promise<Domain> {
  const changes = new WorkspaceChanges(d.exec);
  const workspaceOf = (agent: string) => (d.supervisor.has(agent) ? d.supervisor.get(agent).workspace : null);
  await d.app.register(changesRoutes, { changes, workspaceOf });
  await d.app.register(changeActionRoutes, {
    actions: new ChangeActions(d.exec, changes, d.env),
    workspaceOf,
    busy: (agent) => d.supervisor.get(agent).activity === 'working',
    note: (agent, text) => void d.notes.note(agent, text),
  });
  return {};
}
