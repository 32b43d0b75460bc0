import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { KeyedQueue } from '../../core/keyed-queue.js';
import { Access } from '../../http/access.js';
import { HttpError, ok } from '../../http/envelope.js';
import { okOf } from '../../http/openapi.js';
import {
  CommitBody,
  CommitResult,
  DiscardBody,
  DiscardResult,
  PullRequestBody,
  PullRequestResult,
  PushBody,
  PushResult,
} from '../../wire/changes.js';
import { refProblem } from '../../wire/git-args.js';
import { NameSchema } from '../../wire/names.js';
import { existingWorkspace, type WorkspaceOf } from '../agent-workspace.js';
import { pathRefusal } from '../workspace-path.js';
import type { ChangeActions } from './change-actions.js';
import { changeNotes } from './change-notes.js';

const Params = z.object({ name: NameSchema });

/**
 * Acting on an agent's changes from the phone (issue 33): commit, discard, push, open a pull request. Fleet writes
 * (the operator, a device with the fleet scope, a peer hub), on the same workspace rules as the read-only review
 * routes. Each request is checked whole before git runs: every path (400 `bad_path`), the base (400 `bad_ref`), then
 * whether the agent is in a turn (409 `agent_busy` unless `force`). Writes on one workspace run one at a time, so two
 * taps never meet on git's index lock. Each write done leaves a note in the agent's thread (what, and from which device),
 * for whoever reads the thread later on any client; a note is never typed into the agent.
 */
export const changeActionRoutes: FastifyPluginAsyncZod<{
  actions: ChangeActions;
  workspaceOf: WorkspaceOf;
  /** Whether the agent is in a turn (its activity is `working`): the move refusal's source of truth. */
  busy(agent: string): boolean;
  /** A system note in the agent's thread (ThreadNotes). */
  note(agent: string, text: string): void;
  /** The workspace changed by a write: its change summary is looked at now, not at its next tick. */
  changed(agent: string): void;
}> = async (app, { actions, workspaceOf, busy, note, changed }) => {
  const lanes = new KeyedQueue();
  const write = <B extends z.ZodType, R extends z.ZodType>(body: B, result: R) => ({
    config: { access: Access.fleet },
    schema: { params: Params, body, response: { 200: okOf(result) } },
  });

  /** The workspace once the request passed every check, the write run in its lane, and its note once it is done. */
  const act = async <T>(
    name: string,
    req: { force?: boolean | undefined; paths?: readonly string[] | undefined },
    run: (ws: string) => Promise<T>,
    told: (done: T) => string,
  ): Promise<T> => {
    const ws = await existingWorkspace(workspaceOf, name);
    for (const p of req.paths ?? []) {
      const refusal = await pathRefusal(ws, p);
      if (refusal) throw new HttpError(400, `${JSON.stringify(p)}: ${refusal}`, 'bad_path', { path: p });
    }
    if (!req.force && busy(name))
      throw new HttpError(
        409,
        `${name} is in the middle of a turn: act on its changes once the turn ends, or with force`,
        'agent_busy',
      );
    const done = await lanes.run(ws, () => run(ws));
    note(name, told(done));
    changed(name);
    return done;
  };

  app.post('/api/v1/agents/:name/changes/commit', write(CommitBody, CommitResult), async (req) => {
    const { name } = req.params;
    const { message, paths } = req.body;
    const done = await act(
      name,
      req.body,
      (ws) => actions.commit(ws, message, paths),
      (c) => changeNotes.commit(c, req.principal),
    );
    return ok({ agent: name, ...done } satisfies CommitResult);
  });

  app.post('/api/v1/agents/:name/changes/discard', write(DiscardBody, DiscardResult), async (req) => {
    const { name } = req.params;
    const done = await act(
      name,
      req.body,
      (ws) => actions.discard(ws, req.body.paths),
      (d) => changeNotes.discard(d, req.principal),
    );
    return ok({ agent: name, ...done } satisfies DiscardResult);
  });

  app.post('/api/v1/agents/:name/changes/push', write(PushBody, PushResult), async (req) => {
    const { name } = req.params;
    const done = await act(
      name,
      req.body,
      (ws) => actions.push(ws),
      (p) => changeNotes.push(p, req.principal),
    );
    return ok({ agent: name, ...done } satisfies PushResult);
  });

  app.post('/api/v1/agents/:name/changes/pull-request', write(PullRequestBody, PullRequestResult), async (req) => {
    const { name } = req.params;
    const { base } = req.body;
    const problem = base === undefined ? null : refProblem(base);
    if (problem) throw new HttpError(400, `base ${problem}`, 'bad_ref');
    const done = await act(
      name,
      req.body,
      (ws) => actions.pullRequest(ws, req.body),
      (pr) => changeNotes.pullRequest(pr, req.principal),
    );
    return ok({ agent: name, ...done } satisfies PullRequestResult);
  });
};
