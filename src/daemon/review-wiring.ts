import type { FastifyInstance } from 'fastify';
import type { Supervisor } from '../agents/lifecycle/supervisor.js';
import type { Exec } from '../core/exec.js';
import { changesRoutes } from '../review/changes-routes.js';
import { WorkspaceChanges } from '../review/workspace-changes.js';
import type { Domain } from './domain.js';

/** The review of an agent's workspace changes (git status and diffs), on the agents' helper process. */
export async function wireReview(d: { app: FastifyInstance; exec: Exec; supervisor: Supervisor }): Promise<Domain> {
  await d.app.register(changesRoutes, {
    changes: new WorkspaceChanges(d.exec),
    workspaceOf: (agent) => (d.supervisor.has(agent) ? d.supervisor.get(agent).workspace : null),
  });
  return {};
}
