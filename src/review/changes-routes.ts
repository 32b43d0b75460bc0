import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { Access } from '../http/access.js';
import { HttpError, ok } from '../http/envelope.js';
import { okOf } from '../http/openapi.js';
import { NameSchema } from '../wire/names.js';
import { Changes, FileDiff } from '../wire/changes.js';
import { pathRefusal } from './workspace-path.js';
import { existingWorkspace, type WorkspaceOf } from './agent-workspace.js';
import type { WorkspaceChanges } from './workspace-changes.js';

const Params = z.object({ name: NameSchema });
const DiffQuery = z.object({ path: z.string() });

/**
 * Review (issue 17): an agent workspace's changed files and one file's diff, read-only, for the owner (operator and
 * paired devices: a diff shows whatever the agent wrote, secrets included). The workspace comes from the agent's
 * record; the requested path only ever names a file inside it.
 */
export const changesRoutes: FastifyPluginAsyncZod<{
  changes: WorkspaceChanges;
  workspaceOf: WorkspaceOf;
}> = async (app, { changes, workspaceOf }) => {
  const workspace = (name: string) => existingWorkspace(workspaceOf, name);

  const owner = { config: { access: Access.onAgents } };
  const status = { ...owner, schema: { params: Params, response: { 200: okOf(Changes) } } };
  const diff = { ...owner, schema: { params: Params, querystring: DiffQuery, response: { 200: okOf(FileDiff) } } };
  app.get('/api/v1/agents/:name/changes', status, async (req) => {
    const { name } = req.params;
    const ws = await workspace(name);
    const [status, head] = await Promise.all([changes.status(ws), changes.head(ws)]);
    return ok({ agent: name, workspace: ws, ...status, head } satisfies Changes);
  });

  app.get('/api/v1/agents/:name/changes/diff', diff, async (req) => {
    const { name } = req.params;
    const { path } = req.query;
    const ws = await workspace(name);
    const refusal = await pathRefusal(ws, path);
    if (refusal) throw new HttpError(400, refusal, 'bad_path');
    const diff = await changes.diff(ws, path);
    return ok({ agent: name, path, ...diff } satisfies FileDiff);
  });
};
