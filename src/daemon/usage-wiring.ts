import type { FastifyInstance } from 'fastify';
import type { HookRouter } from '../agents/hook-router.js';
import type { Supervisor } from '../agents/lifecycle/supervisor.js';
import { HarnessSchema, type Config } from '../config/schema.js';
import type { Clock } from '../core/clock.js';
import type { Logger } from '../core/logger.js';
import type { EventBus } from '../events/bus.js';
import type { FeatureSet } from '../events/features.js';
import type { WorkerPool } from '../pool/worker-pool.js';
import type { Database } from '../store/database.js';
import { UsageMeter } from '../usage/usage-meter.js';
import { usageRoutes } from '../usage/usage-routes.js';
import { UsageStore } from '../usage/usage-store.js';

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

/** Once the agents domain exists: every agent's Stop hook is metered, and the per-day route is served. */
export async function wireUsage(d: {
  app: FastifyInstance;
  meter: UsageMeter;
  hooks: HookRouter;
  supervisor: Supervisor;
  features: FeatureSet;
}): Promise<void> {
  d.hooks.on('stop', ({ agent, payload }) => {
    const harness = d.supervisor.has(agent) ? HarnessSchema.safeParse(d.supervisor.get(agent).harness) : null;
    void d.meter.onStop(agent, harness?.success ? harness.data : null, payload);
    return {};
  });
  await d.app.register(usageRoutes, { meter: d.meter, agentExists: (a) => d.supervisor.has(a) });
  d.features.add('agent_usage');
}

/**
 * At start-up, once the agents are known: each agent's last turn whose Stop the daemon may have missed while down,
 * from the transcript its last Stop or SessionStart named (the reply watch keeps it).
 */
export async function catchUpUsage(d: {
  meter: UsageMeter;
  supervisor: Supervisor;
  transcriptOf(agent: string): string | null;
}): Promise<void> {
  for (const a of d.supervisor.list()) {
    const transcript = d.transcriptOf(a.name);
    const harness = HarnessSchema.safeParse(a.harness);
    if (transcript && harness.success) await d.meter.catchUp(a.name, harness.data, transcript);
  }
}
