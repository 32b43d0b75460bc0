import type { FastifyInstance } from 'fastify';
import type { AgentStore } from '../agents/agent-store.js';
import type { HookRouter } from '../agents/hook-router.js';
import type { ReplyStore } from '../chat/replies/reply-store.js';
import type { Supervisor } from '../agents/lifecycle/supervisor.js';
import { HarnessSchema, type Config } from '../config/schema.js';
import type { Clock } from '../core/clock.js';
import type { Logger } from '../core/logger.js';
import type { EventBus } from '../events/bus.js';
import type { FeatureSet } from '../core/features.js';
import type { WorkerPool } from '../pool/worker-pool.js';
import type { Database } from '../store/database.js';
import { UsageMeter } from '../usage/usage-meter.js';
import { usageRoutes } from '../usage/usage-routes.js';
import { UsageStore } from '../usage/usage-store.js';
import { catchUpUsage } from '../usage/usage-catch-up.js';
import type { Domain } from './domain.js';

/** The meter, built before the agents domain: /api/v1/state lists each agent's sums from it. */
export function buildUsageMeter(d: {
  db: Database;
  bus: EventBus;
  clock: Clock;
  logger: Logger;
  pool: WorkerPool;
  config(): Config;
}): UsageMeter {
  return new UsageMeter({
    store: new UsageStore(d.db),
    bus: d.bus,
    clock: d.clock,
    logger: d.logger,
    prices: () => d.config().usage.prices,
    read: (input) => d.pool.run('readTurnUsage', input),
  });
}

/**
 * Once the agents domain exists: every agent's Stop hook is metered, a rename carries the agent's sums, the turns the
 * daemon missed while down are caught up, and the per-day route is served.
 */
export async function wireUsage(d: {
  app: FastifyInstance;
  meter: UsageMeter;
  hooks: HookRouter;
  supervisor: Supervisor;
  agents: AgentStore;
  replies: ReplyStore;
  features: FeatureSet;
}): Promise<Domain> {
  d.hooks.on('stop', ({ agent, payload }) => {
    const harness = d.supervisor.has(agent) ? HarnessSchema.safeParse(d.supervisor.get(agent).harness) : null;
    void d.meter.onStop(agent, harness?.success ? harness.data : null, payload);
    return {};
  });
  d.agents.onRename((from, to) => d.meter.renamed(from, to));
  void catchUpUsage({
    meter: d.meter,
    agents: d.supervisor,
    transcriptOf: (a) => d.replies.transcript(a).path,
  });
  await d.app.register(usageRoutes, { meter: d.meter, agentExists: (a) => d.supervisor.has(a) });
  d.features.add('agent_usage');
  return {};
}
