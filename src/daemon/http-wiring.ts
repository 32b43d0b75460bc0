import type { Authenticator } from '../auth/authenticator.js';
import type { AttachmentStore } from '../chat/attachments/attachments.js';
import type { PendingLimit } from '../chat/threads/pending-limit.js';
import type { Config } from '../config/schema.js';
import type { Clock } from '../core/clock.js';
import type { Logger } from '../core/logger.js';
import { openFileLimit } from '../core/open-file-limit.js';
import type { EventBus } from '../events/bus.js';
import type { SseHub } from '../events/sse-hub.js';
import { StreamCaps } from '../events/stream-caps.js';
import { ConnectionCap, connectionCeiling } from '../http/connection-cap.js';
import { createServer } from '../http/server.js';
import type { TlsPair, TlsReloader } from '../http/tls-files.js';
import { LoopDelayMonitor } from '../metrics/loop-delay.js';
import { Metrics } from '../metrics/metrics.js';
import type { WorkerPool } from '../pool/worker-pool.js';

export interface HttpWiringDeps {
  clock: Clock;
  logger: Logger;
  config(): Config;
  /** web.tls's pair as proven at start-up, and its reloader (absent over HTTP). */
  tls: TlsPair | undefined;
  certificates: TlsReloader | null;
  auth: Authenticator;
  bus: EventBus;
  hub: SseHub;
  pool: WorkerPool;
  /** Read by the metrics: each agent's undelivered messages, the threads' uploads. */
  pending: PendingLimit;
  attachments: AttachmentStore;
}

/**
 * The server every domain registers its plugins on, with what bounds it (connection and stream caps) and what
 * measures it (the metrics, the event loop's delay). Listening is the daemon's, once every domain is built.
 */
export function buildHttp(d: HttpWiringDeps) {
  const { config } = d;
  const loopDelay = new LoopDelayMonitor();
  // Node has already raised the soft open-file limit to the hard one; what it is bounds the TCP connection cap.
  const openFiles = openFileLimit()?.soft ?? null;
  const connections = new ConnectionCap(() => ({
    max: connectionCeiling(config().web.max_connections, openFiles),
    perToken: config().web.max_connections_per_token,
  }));
  if (connections.readout().max < config().web.max_connections)
    d.logger.warn(
      { open_files: openFiles, max_connections: config().web.max_connections, cap: connections.readout().max },
      'the open-file limit leaves room for fewer TCP connections than web.max_connections: capped lower (raise the limit with ulimit -n)',
    );
  const streams = new StreamCaps(() => ({
    total: config().web.sse_max_subscribers,
    perToken: config().web.sse_max_per_token,
  }));
  const metrics = new Metrics({
    loopDelay: () => loopDelay.summary(),
    sse: () => ({ subscribers: d.hub.subscribers, dropped: d.hub.dropped, ...streams.readout() }),
    eventsPublished: () => d.bus.stats().published,
    pool: () => d.pool.readout(),
    connections: () => connections.readout(),
    pending: () => d.pending.readout(),
    uploads: () => ({ quota: config().chat.attachment_quota_bytes, threads: d.attachments.uploadTotals() }),
  });
  const server = createServer({
    ...(d.tls ? { tls: d.tls } : {}),
    logger: d.logger,
    bodyLimit: config().web.body_limit,
    requestTimeoutMs: config().web.request_timeout,
    allowedHosts: () => config().web.allowed_hosts,
    identify: (t) => d.auth.identify(t),
    onResponse: (route, method, status) => metrics.countRequest(route, method, status),
    connections,
  });
  d.certificates?.onReload((pair) => server.setCertificate(pair));
  server.app.addHook('preClose', async () => d.hub.closeAll());
  return { server, streams, metrics, stop: () => loopDelay.stop() };
}
