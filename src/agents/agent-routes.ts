import type { FastifyPluginAsync } from 'fastify';
import { z } from 'zod';
import { Access, type RouteAccess } from '../http/access.js';
import { HttpError, ok } from '../http/envelope.js';
import { okOf } from '../http/openapi.js';
import { parseInput } from '../http/validate.js';
import { Agent } from '../wire/fleet.js';
import { AgentError } from './agent-error.js';
import { AgentName } from '../wire/names.js';
import {
  AppearanceBody,
  EnvironmentsBody,
  RemovedAgent,
  RenameBody,
  SpawnBody,
  TemplateBody,
} from '../wire/agent-bodies.js';
import type { Supervisor } from './lifecycle/supervisor.js';

const NameParams = z.object({ name: z.string().min(1).max(64) });

export interface AgentRoutesDeps {
  supervisor: Supervisor;
  /** Sends the spawn request's first prompt as the agent's first chat message (typed once its harness is ready). */
  deliverPrompt(agent: string, prompt: string): void;
  /** True when leo.yaml on disk currently fails validation: config-dependent writes answer config_unavailable. */
  configBroken(): boolean;
}

/**
 * The agent operations; each maps AgentError to the spec's status codes. The owner runs the fleet from the operator
 * token or a paired device granted the fleet scope (Leo Web on the owner's phone); a device's spawn may not set
 * `env`, which could change what a template's program runs (PATH, BASH_ENV, LD_PRELOAD): a device steers the
 * configured templates, it does not write new ones. An agent's appearance is cosmetic and open to every device.
 */
export const agentRoutes: FastifyPluginAsync<AgentRoutesDeps> = async (app, deps) => {
  const { supervisor } = deps;
  const op = { config: { access: Access.fleet } };
  /** An operation on one agent that answers the agent as it now is; `body` is its request body, if it takes one. */
  const onAgent = (body?: z.ZodType, access: RouteAccess = Access.fleet) => ({
    config: { access },
    schema: { params: NameParams, ...(body ? { body } : {}), response: { 200: okOf(Agent) } },
  });
  const run = async <T>(fn: () => Promise<T> | T): Promise<{ ok: true; data: T }> => {
    try {
      return ok(await fn());
    } catch (err) {
      throw toHttp(err);
    }
  };
  const needConfig = () => {
    if (deps.configBroken()) throw new HttpError(500, 'the config would not load', 'config_unavailable');
  };
  const nameOf = (params: unknown) => parseInput(NameParams, params, 'params').name;

  const readers = { config: { access: Access.readers } };
  app.get('/api/v1/agents', { ...readers, schema: { response: { 200: okOf(z.array(Agent)) } } }, async () =>
    ok(supervisor.list()),
  );

  const getAgent = { ...readers, schema: { params: NameParams, response: { 200: okOf(Agent) } } };
  app.get('/api/v1/agents/:name', getAgent, async (req) => run(() => supervisor.get(nameOf(req.params))));

  const spawn = { ...op, schema: { body: SpawnBody, response: { 201: okOf(Agent) } } };
  app.post('/api/v1/agents/spawn', spawn, async (req, reply) => {
    const body = parseInput(SpawnBody, req.body, 'body');
    if (body.env && req.principal?.kind === 'device')
      throw new HttpError(
        403,
        "body.env: only the operator token may set an agent's environment variables",
        'env_operator_only',
      );
    needConfig();
    const name = body.name ?? defaultName(body);
    const res = await run(() => supervisor.spawn({ ...body, name }));
    if (body.prompt) deps.deliverPrompt(name, body.prompt);
    return reply.code(201).send(res);
  });

  for (const action of ['stop', 'start', 'restart', 'reset'] as const)
    app.post(`/api/v1/agents/:name/${action}`, onAgent(), async (req) =>
      run(() => supervisor[action](nameOf(req.params))),
    );

  const remove = { ...op, schema: { params: NameParams, response: { 200: okOf(RemovedAgent) } } };
  app.delete('/api/v1/agents/:name', remove, async (req) =>
    run(async () => {
      const name = nameOf(req.params);
      await supervisor.remove(name);
      return { name, removed: true };
    }),
  );

  app.post('/api/v1/agents/:name/rename', onAgent(RenameBody), async (req) => {
    const body = parseInput(RenameBody, req.body, 'body');
    return run(() => supervisor.rename(nameOf(req.params), body.name));
  });

  app.post('/api/v1/agents/:name/template', onAgent(TemplateBody), async (req) => {
    const body = parseInput(TemplateBody, req.body, 'body');
    needConfig();
    return run(() => supervisor.setTemplate(nameOf(req.params), body.template));
  });

  app.post('/api/v1/agents/:name/environments', onAgent(EnvironmentsBody), async (req) => {
    const body = parseInput(EnvironmentsBody, req.body, 'body');
    needConfig();
    return run(() => supervisor.setEnvironments(nameOf(req.params), body.environments));
  });

  app.put('/api/v1/agents/:name/appearance', onAgent(AppearanceBody, Access.operatorOrDevice), async (req) => {
    const body = parseInput(AppearanceBody, req.body, 'body');
    return run(() => supervisor.setAppearance(nameOf(req.params), body));
  });
};

/** A spawn without a name takes the repo's last path segment, else the template's name. */
function defaultName(body: SpawnBody): string {
  const fromRepo = body.repo
    ?.replace(/\.git$/, '')
    .split(/[/:]/)
    .filter(Boolean)
    .at(-1);
  const candidate = (fromRepo ?? body.template).replace(/[^a-zA-Z0-9_-]/g, '-').replace(/^[^a-zA-Z0-9]+/, '');
  const parsed = AgentName.safeParse(candidate.slice(0, 63));
  if (!parsed.success)
    throw new HttpError(400, 'body.name: required (could not derive one from repo or template)', undefined, {
      field: 'name',
    });
  return parsed.data;
}

function toHttp(err: unknown): unknown {
  if (!(err instanceof AgentError)) return err;
  const status = { not_found: 404, conflict: 409, invalid: 400, config_unavailable: 500 }[err.kind];
  return new HttpError(
    status,
    err.message,
    err.kind === 'config_unavailable' ? 'config_unavailable' : undefined,
    err.field ? { field: err.field } : undefined,
  );
}
