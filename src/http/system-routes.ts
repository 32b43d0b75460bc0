import type { FastifyPluginAsync } from 'fastify';
import { z } from 'zod';
import type { Clock } from '../core/clock.js';
import { rfc3339 } from '../core/time.js';
import { API_VERSION, LEO_VERSION } from '../core/version.js';
import type { FeatureSet } from '../core/features.js';
import type { Metrics } from '../metrics/metrics.js';
import { CheckResult } from '../wire/check-result.js';
import { Access } from './access.js';
import { ok } from './envelope.js';
import { okOf } from './openapi.js';

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

const OpenApiDocument = z.looseObject({
  openapi: z.string(),
  info: z.looseObject({ version: z.string() }),
  paths: z.record(z.string(), z.unknown()),
});
/** Where the daemon listens: its TCP address, its unix socket and Leo Web's URL. */
export const Listeners = z.object({ tcp: z.string(), socket: z.string(), app: z.string() });

/** GET /api/v1/daemon: the running process as `leo status` shows it. */
export const DaemonInfo = z.object({
  ready: z.boolean(),
  pid: z.number().int(),
  boot_id: z.string(),
  leo_version: z.string(),
  node: z.string(),
  started_at: z.string(),
  uptime_s: z.number().int(),
  listeners: Listeners,
  /**
   * The doctor's checks that are not ok, judged by the daemon itself: the CLIs on its PATH and the environment its
   * agents get, which the shell calling `leo status` need not share.
   */
  warnings: z.array(CheckResult).optional(),
});
export type DaemonInfo = z.infer<typeof DaemonInfo>;

export interface SystemRoutesDeps {
  bootId: string;
  isReady(): boolean;
  features: FeatureSet;
  metrics: Metrics;
  clock: Clock;
  /** When this daemon started, by its clock. */
  startedAt: number;
  listeners(): z.infer<typeof Listeners>;
  /** runChecks' results that are not ok, from the daemon's own environment and config. */
  doctorWarnings(): Promise<CheckResult[]>;
}

/** The daemon's view of itself: liveness, version and capabilities, Prometheus metrics. */
export const systemRoutes: FastifyPluginAsync<SystemRoutesDeps> = async (app, deps) => {
  app.get('/health', { config: { access: Access.public }, schema: { response: { 200: okOf(Health) } } }, async () =>
    ok<Health>({ ready: deps.isReady(), pid: process.pid, boot_id: deps.bootId }),
  );

  app.get(
    '/api/v1/version',
    { config: { access: Access.anyToken }, schema: { response: { 200: okOf(VersionInfo) } } },
    async () =>
      ok<VersionInfo>({
        leo_version: LEO_VERSION,
        api_version: API_VERSION,
        boot_id: deps.bootId,
        node: process.version,
        features: deps.features.list(),
      }),
  );

  // The contract itself, generated from the routes' schemas (openapi.ts); bare, not enveloped, so OpenAPI tools
  // can read it from its URL.
  app.get(
    '/api/v1/openapi.json',
    { config: { access: Access.operatorOrDevice }, schema: { response: { 200: OpenApiDocument } } },
    async () => app.swagger(),
  );

  app.get(
    '/api/v1/daemon',
    { config: { access: Access.operator }, schema: { response: { 200: okOf(DaemonInfo) } } },
    async () =>
      ok<DaemonInfo>({
        ready: deps.isReady(),
        pid: process.pid,
        boot_id: deps.bootId,
        leo_version: LEO_VERSION,
        node: process.version,
        started_at: rfc3339(deps.startedAt),
        uptime_s: Math.max(0, Math.floor((deps.clock.now() - deps.startedAt) / 1000)),
        listeners: deps.listeners(),
        warnings: await deps.doctorWarnings(),
      }),
  );

  app.get('/metrics', { config: { access: Access.operator } }, async (_request, reply) => {
    const { contentType, body } = await deps.metrics.render();
    return reply.type(contentType).send(body);
  });
};
