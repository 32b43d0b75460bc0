import type { FastifyPluginAsync } from 'fastify';
import { z } from 'zod';
import { TemplateSummary } from './template-summary.js';
import { Access } from '../http/access.js';
import { HttpError, ok } from '../http/envelope.js';
import { parseInput } from '../http/validate.js';
import { replaceTopLevelKey } from './config-file.js';
import type { Config } from './schema.js';

/** PUT /api/v1/appearance/rules takes the list itself or {rules: [...]}; each rule is checked by the config loader. */
const RulesBody = z.union([z.array(z.unknown()), z.strictObject({ rules: z.array(z.unknown()) })]);

export interface ConfigRoutesDeps {
  config(): Config;
  configFile: string;
  home: string;
  configBroken(): boolean;
  /** Re-reads leo.yaml after a write, so the new rules are in force (and published) before the response. */
  reload(reason: string): Promise<unknown>;
}

/** Read-only views of leo.yaml that never carry an environment's values, and the appearance-rules editor. */
export const configRoutes: FastifyPluginAsync<ConfigRoutesDeps> = async (app, deps) => {
  app.get('/api/v1/environments', { config: { access: Access.readers } }, async () =>
    // Sorted: the config map's order is not stable across saves (spec).
    ok(
      Object.keys(deps.config().environments)
        .sort()
        .map((name) => ({ name })),
    ),
  );

  app.get('/api/v1/templates', { config: { access: Access.readers } }, async () => {
    const c = deps.config();
    return ok(
      Object.keys(c.templates)
        .sort()
        .map((name): TemplateSummary => ({
          name,
          harness: c.templates[name]!.harness ?? c.defaults.harness,
          model: c.templates[name]!.model ?? c.defaults.model ?? '',
          environments: c.templates[name]!.environments ?? [],
        })),
    );
  });

  const rulesAccess = { config: { access: Access.operatorOrDevice } };
  app.get('/api/v1/appearance/rules', rulesAccess, async () => ok(deps.config().appearance_rules));

  app.put('/api/v1/appearance/rules', rulesAccess, async (req) => {
    const body = parseInput(RulesBody, req.body, 'body');
    const rules = Array.isArray(body) ? body : body.rules;
    if (deps.configBroken()) throw new HttpError(500, 'the config would not load', 'config_unavailable');
    const written = replaceTopLevelKey(deps.configFile, 'appearance_rules', rules, deps.home);
    if (!written.ok)
      throw new HttpError(400, written.errors.map((e) => e.replace(/^.*?leo\.yaml:\d+: /, '')).join('; '), undefined, {
        field: 'rules',
      });
    await deps.reload('appearance rules replaced by the API');
    return ok(deps.config().appearance_rules);
  });
};
