import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { HostName } from '../wire/host.js';
import { TemplateSummary } from '../wire/templates.js';
import { Access } from '../http/access.js';
import { HttpError, ok } from '../http/envelope.js';
import { okOf } from '../http/openapi.js';
import { replaceTopLevelKey } from './config-file.js';
import type { ChatEngineFor, Config } from './schema.js';

/** PUT /api/v1/appearance/rules takes the list itself or {rules: [...]}; each rule is checked by the config loader. */
const RulesBody = z.union([z.array(z.unknown()), z.strictObject({ rules: z.array(z.unknown()) })]);

/** An environment by name only: its values never leave the daemon. */
export const EnvironmentName = z.object({ name: z.string() });
/** On a hub, `?host=` lists another machine's own templates and environments (src/hosts/proxy answers it). */
const PerHostQuery = z.object({ host: HostName.optional() });
/** An appearance rule as leo.yaml holds it (docs/CONFIG.md): the config loader is what checks one. */
const AppearanceRule = z.record(z.string(), z.unknown());

export interface ConfigRoutesDeps {
  config(): Config;
  configFile: string;
  home: string;
  chatEngineFor: ChatEngineFor;
  configBroken(): boolean;
  /** Re-reads leo.yaml after a write, so the new rules are in force (and published) before the response. */
  reload(reason: string): Promise<unknown>;
}

/** Read-only views of leo.yaml that never carry an environment's values, and the appearance-rules editor. */
export const configRoutes: FastifyPluginAsyncZod<ConfigRoutesDeps> = async (app, deps) => {
  const readers = { config: { access: Access.readers } };
  const environments = {
    ...readers,
    schema: { querystring: PerHostQuery, response: { 200: okOf(z.array(EnvironmentName)) } },
  };
  app.get('/api/v1/environments', environments, async () =>
    // Sorted: the config map's order is not stable across saves (spec).
    ok(
      Object.keys(deps.config().environments)
        .sort()
        .map((name) => ({ name })),
    ),
  );

  const templates = {
    ...readers,
    schema: { querystring: PerHostQuery, response: { 200: okOf(z.array(TemplateSummary)) } },
  };
  app.get('/api/v1/templates', templates, async () => {
    const c = deps.config();
    return ok(
      Object.keys(c.templates)
        .sort()
        .map((name): TemplateSummary => ({
          name,
          harness: c.templates[name]!.harness ?? c.defaults.harness,
          model: c.templates[name]!.model ?? c.defaults.model ?? '',
          environments: c.templates[name]!.environments ?? [],
          spawn_environments: c.templates[name]!.environments ?? c.defaults.environments,
          worktree: c.templates[name]!.worktree ?? false,
        })),
    );
  });

  const rulesAnswer = { response: { 200: okOf(z.array(AppearanceRule)) } };
  const rulesAccess = { config: { access: Access.operatorOrDevice }, schema: rulesAnswer };
  app.get('/api/v1/appearance/rules', rulesAccess, async () => ok(deps.config().appearance_rules));

  app.put('/api/v1/appearance/rules', { ...rulesAccess, schema: { ...rulesAnswer, body: RulesBody } }, async (req) => {
    const rules = Array.isArray(req.body) ? req.body : req.body.rules;
    if (deps.configBroken()) throw new HttpError(500, 'the config would not load', 'config_unavailable');
    const written = replaceTopLevelKey(deps.configFile, 'appearance_rules', rules, deps.home, deps.chatEngineFor);
    if (!written.ok)
      throw new HttpError(400, written.errors.map((e) => e.replace(/^.*?leo\.yaml:\d+: /, '')).join('; '), undefined, {
        field: 'rules',
      });
    await deps.reload('appearance rules replaced by the API');
    return ok(deps.config().appearance_rules);
  });
};
