import fs from 'node:fs/promises';
import { notFound } from '../core/leo-error.js';
import { HttpError } from '../http/envelope.js';

/** The agent's workspace, or null for an unknown agent. */
export type WorkspaceOf = (agent: string) => string | null;

/** The workspace of agent `name` for a review route: 404 for an unknown agent, 409 when its folder is gone. */
export async function existingWorkspace(workspaceOf: WorkspaceOf, name: string): Promise<string> {
  const ws = workspaceOf(name);
  if (ws === null) throw notFound(`no agent named "${name}"`);
  // Checked here: git started in a missing folder fails to start at all, which would read as a 500.
  if (
    !(await fs.stat(ws).then(
      (s) => s.isDirectory(),
      () => false,
    ))
  )
    throw new HttpError(409, `the workspace ${ws} is missing`, 'workspace_missing');
  return ws;
}
