import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { NameSchema } from '../wire/names.js';
import { Access } from '../http/access.js';
import { ok } from '../http/envelope.js';
import { notFound } from '../core/leo-error.js';
import { okOf } from '../http/openapi.js';
import { AgentUsageDays } from '../wire/usage.js';
import type { UsageMeter } from './usage-meter.js';

const MAX_USAGE_DAYS = 366;

const Params = z.object({ name: NameSchema });
const Query = z.object({ days: z.coerce.number().int().min(1).max(MAX_USAGE_DAYS).default(7) });

/**
 * What an agent costs per day, for whoever may read the fleet (/api/v1/state shows the same sums all-time): figures
 * only, never what the turns said.
 */
export const usageRoutes: FastifyPluginAsyncZod<{ meter: UsageMeter; agentExists(agent: string): boolean }> = async (
  app,
  { meter, agentExists },
) => {
  const schema = { params: Params, querystring: Query, response: { 200: okOf(AgentUsageDays) } };
  app.get('/api/v1/agents/:name/usage', { config: { access: Access.readers }, schema }, async (req) => {
    const { name } = req.params;
    const { days } = req.query;
    if (!agentExists(name)) throw notFound(`no agent named "${name}"`);
    return ok({ agent: name, days: meter.perDay(name, days), totals: meter.totals(name) } satisfies AgentUsageDays);
  });
};
