import type { FastifyPluginAsync } from 'fastify';
import { z } from 'zod';
import { API_VERSION, LEO_VERSION } from '../core/version.js';
import type { FeatureSet } from '../events/features.js';
import type { Metrics } from '../metrics/metrics.js';
import { Access } from './access.js';
import { ok } from './envelope.js';

export const Health = z.object({ ready: z.boolean(), pid: z.number().int(), boot_id: z.string() });
export type Health = z.infer<typeof Health>;

export const VersionInfo = z.object({
  leo_version: z.string(),
  api_version: z.number().int(),
  boot_id: z.string(),
  node: z.string(),
  features: z.array(z.string()),
});
export type VersionInfo = z.infer<typeof VersionInfo>;

export interface SystemRoutesDeps {
  bootId: string;
  isReady(): boolean;
  features: FeatureSet;
  metrics: Metrics;
}

/** The daemon's view of itself: liveness, version and capabilities, Prometheus metrics. */
export const systemRoutes: FastifyPluginAsync<SystemRoutesDeps> = async (app, deps) => {
  app.get('/health', { config: { access: Access.public } }, async () =>
    ok<Health>({ ready: deps.isReady(), pid: process.pid, boot_id: deps.bootId }),
  );

  app.get('/api/v1/version', { config: { access: Access.anyToken } }, async () =>
    ok<VersionInfo>({
      leo_version: LEO_VERSION,
      api_version: API_VERSION,
      boot_id: deps.bootId,
      node: process.version,
      features: deps.features.list(),
    }),
  );

  app.get('/metrics', { config: { access: Access.operator } }, async (_request, reply) => {
    const { contentType, body } = await deps.metrics.render();
    return reply.type(contentType).send(body);
  });
};
