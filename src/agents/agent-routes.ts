import type { FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { Access, type RouteAccess } from '../http/access.js';
import { HttpError, ok } from '../http/envelope.js';
import { okOf } from '../http/openapi.js';
import { Agent } from '../wire/fleet.js';
import { AgentName } from '../wire/names.js';
import {
  AppearanceBody,
  EnvironmentsBody,
  RemovedAgent,
  RemoveQuery,
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
 * The agent operations, refused with AgentError's status codes. The owner runs the fleet from the operator
 * token or a paired device granted the fleet scope (Leo Web on the owner's phone); a device's spawn may not set
 * `env`, which could change what a template's program runs (PATH, BASH_ENV, LD_PRELOAD): a device steers the
 * configured templates, it does not write new ones. An agent's appearance is cosmetic and open to every device.
 */
export const agentRoutes: FastifyPluginAsyncZod<AgentRoutesDeps> = async (app, deps) => {
  const { supervisor } = deps;
  const op = { config: { access: Access.fleet } };
  /** An operation on one agent that answers the agent as it now is; `schema` adds its request body, if it takes one. */
  const onAgent = <S extends object>(schema: S, access: RouteAccess = Access.fleet) => ({
    config: { access },
    schema: { params: NameParams, ...schema, response: { 200: okOf(Agent) } },
  });
  const needConfig = () => {
    if (deps.configBroken()) throw new HttpError(500, 'the config would not load', 'config_unavailable');
  };

  const readers = { config: { access: Access.readers } };
  app.get('/api/v1/agents', { ...readers, schema: { response: { 200: okOf(z.array(Agent)) } } }, async () =>
    ok(supervisor.list()),
  );

  const getAgent = { ...readers, schema: { params: NameParams, response: { 200: okOf(Agent) } } };
  app.get('/api/v1/agents/:name', getAgent, async (req) => ok(supervisor.get(req.params.name)));

  const spawn = {
    ...op,
    schema: { body: SpawnBody, response: { 201: okOf(Agent) } },
    // Before validation, so a hub refuses it before passing a spawn on to another machine (src/hosts/proxy).
    preValidation: async (req: FastifyRequest) => {
      if ((req.body as { env?: unknown } | null)?.env && req.principal?.kind === 'device')
        throw new HttpError(
          403,
          "body.env: only the operator token may set an agent's environment variables",
          'env_operator_only',
        );
    },
  };
  app.post('/api/v1/agents/spawn', spawn, async (req, reply) => {
    const { body } = req;
    needConfig();
    const name = body.name ?? defaultName(body);
    const res = ok(await supervisor.spawn({ ...body, name }));
    if (body.prompt) deps.deliverPrompt(name, body.prompt);
    return reply.code(201).send(res);
  });

  for (const action of ['stop', 'start', 'restart', 'reset'] as const)
    app.post(`/api/v1/agents/:name/${action}`, onAgent({}), async (req) =>
      ok(await supervisor[action](req.params.name)),
    );

  const remove = {
    ...op,
    schema: { params: NameParams, querystring: RemoveQuery, response: { 200: okOf(RemovedAgent) } },
  };
  app.delete('/api/v1/agents/:name', remove, async (req) =>
    ok(await supervisor.remove(req.params.name, { force: req.query.force === 'true' })),
  );

  app.post('/api/v1/agents/:name/rename', onAgent({ body: RenameBody }), async (req) => {
    return ok(await supervisor.rename(req.params.name, req.body.name));
  });

  app.post('/api/v1/agents/:name/template', onAgent({ body: TemplateBody }), async (req) => {
    needConfig();
    return ok(await supervisor.setTemplate(req.params.name, req.body.template));
  });

  app.post('/api/v1/agents/:name/environments', onAgent({ body: EnvironmentsBody }), async (req) => {
    needConfig();
    return ok(await supervisor.setEnvironments(req.params.name, req.body.environments));
  });

  app.put('/api/v1/agents/:name/appearance', onAgent({ body: AppearanceBody }, Access.onAgents), async (req) => {
    return ok(await supervisor.setAppearance(req.params.name, req.body));
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
