import { Counter, Gauge, Registry, collectDefaultMetrics } from 'prom-client';
import type { LoopDelaySummary } from './loop-delay.js';

/** Readouts the metrics registry pulls at scrape time; each comes from the service that owns the number. */
export interface MetricSources {
  loopDelay(): LoopDelaySummary;
  /** Open streams and drops from the hub; the caps, the token holders' open streams and refusals from StreamCaps. */
  sse(): { subscribers: number; dropped: number; open: number; max: number; maxPerToken: number; refused: number };
  eventsPublished(): number;
  pool(): { queueSize: number; utilization: number; threads: number; completed: number };
  connections(): {
    open: number;
    max: number;
    maxPerToken: number;
    evicted: number;
    refused: number;
    refusedForToken: number;
  };
  /** Undelivered messages per agent (only agents that have some) and the per-agent cap. */
  pending(): { max: number; agents: ReadonlyMap<string, number> };
  /** Uploaded bytes each thread holds against its quota (`_unclaimed`: not yet sent), and the quota. */
  uploads(): { quota: number; threads: ReadonlyMap<string, number> };
}

/** The daemon's Prometheus registry. Gauges are filled on scrape, so nothing is computed between scrapes. */
export class Metrics {
  readonly registry = new Registry();
  private readonly httpRequests: Counter<'route' | 'method' | 'status'>;

  constructor(sources: MetricSources) {
    const r = this.registry;
    collectDefaultMetrics({ register: r, prefix: 'leo_' });
    this.httpRequests = new Counter({
      name: 'leo_http_requests_total',
      help: 'HTTP requests answered, by route pattern, method and status',
      labelNames: ['route', 'method', 'status'],
      registers: [r],
    });
    new Gauge({
      name: 'leo_main_loop_delay_seconds',
      help: 'Main-thread event-loop delay over the last one to two minutes',
      labelNames: ['quantile'],
      registers: [r],
      collect() {
        const d = sources.loopDelay();
        for (const [q, v] of [
          ['0.5', d.p50],
          ['0.9', d.p90],
          ['0.99', d.p99],
          ['1', d.max],
        ] as const)
          this.set({ quantile: q }, v / 1000);
      },
    });
    new Gauge({
      name: 'leo_sse_subscribers',
      help: 'Open /api/v1/events streams',
      registers: [r],
      collect() {
        this.set(sources.sse().subscribers);
      },
    });
    new Counter({
      name: 'leo_sse_slow_consumers_dropped_total',
      help: 'SSE subscribers disconnected because their queue filled',
      registers: [r],
      collect() {
        this.reset();
        this.inc(sources.sse().dropped);
      },
    });
    const gauge = (name: string, help: string, read: () => number) =>
      new Gauge({
        name,
        help,
        registers: [r],
        collect() {
          this.set(read());
        },
      });
    const counter = (name: string, help: string, read: () => number) =>
      new Counter({
        name,
        help,
        registers: [r],
        collect() {
          this.reset();
          this.inc(read());
        },
      });
    const perAgent = (name: string, help: string, label: string, read: () => ReadonlyMap<string, number>) =>
      new Gauge({
        name,
        help,
        labelNames: [label],
        registers: [r],
        collect() {
          // Agents whose figure fell to zero drop out rather than linger at their last value.
          this.reset();
          for (const [key, value] of read()) this.set({ [label]: key }, value);
        },
      });
    gauge(
      'leo_streams_open',
      'Long-lived streams over TCP the stream caps count: /api/v1/events, terminal streams, session SSE and /ws',
      () => sources.sse().open,
    );
    gauge(
      'leo_sse_subscribers_max',
      'Cap on streams over TCP: events, terminal and session streams together (web.sse_max_subscribers)',
      () => sources.sse().max,
    );
    gauge(
      'leo_sse_subscribers_per_token_max',
      'Cap on streams per token: events, terminal and session streams together (web.sse_max_per_token)',
      () => sources.sse().maxPerToken,
    );
    counter(
      'leo_sse_refused_total',
      'Streams refused at a cap (429 or 503 too_many_streams)',
      () => sources.sse().refused,
    );
    gauge(
      'leo_tcp_connections',
      'Open TCP connections (the unix socket is not counted)',
      () => sources.connections().open,
    );
    gauge(
      'leo_tcp_connections_max',
      'Cap on open TCP connections (web.max_connections, lowered to fit the open-file limit)',
      () => sources.connections().max,
    );
    gauge(
      'leo_tcp_connections_per_token_max',
      'Cap on open TCP connections per token (web.max_connections_per_token, at most half the cap)',
      () => sources.connections().maxPerToken,
    );
    counter(
      'leo_tcp_connections_evicted_total',
      'Connections closed to make room: without a token yet, or idle (at the cap, or beyond a token share)',
      () => sources.connections().evicted,
    );
    counter(
      'leo_tcp_connections_refused_total',
      'Connections refused at the cap (503 too_many_connections)',
      () => sources.connections().refused,
    );
    counter(
      'leo_tcp_connections_refused_per_token_total',
      'Requests refused because their token held its share of connections, all busy (429 too_many_connections)',
      () => sources.connections().refusedForToken,
    );
    perAgent(
      'leo_chat_pending_messages',
      'Undelivered messages waiting per agent',
      'agent',
      () => sources.pending().agents,
    );
    gauge(
      'leo_chat_pending_messages_max',
      'Cap on undelivered messages per agent (chat.max_pending_messages)',
      () => sources.pending().max,
    );
    perAgent(
      'leo_chat_upload_bytes',
      'Uploaded bytes each thread holds against its quota (_unclaimed: not yet sent)',
      'thread',
      () => sources.uploads().threads,
    );
    gauge(
      'leo_chat_upload_quota_bytes',
      'Upload quota per thread (chat.attachment_quota_bytes)',
      () => sources.uploads().quota,
    );
    new Counter({
      name: 'leo_events_published_total',
      help: 'Events published on the bus',
      registers: [r],
      collect() {
        this.reset();
        this.inc(sources.eventsPublished());
      },
    });
    const pool = (name: string, help: string, pick: (p: ReturnType<MetricSources['pool']>) => number) =>
      new Gauge({
        name,
        help,
        registers: [r],
        collect() {
          this.set(pick(sources.pool()));
        },
      });
    pool('leo_pool_queue_depth', 'Tasks waiting for a worker thread', (p) => p.queueSize);
    pool('leo_pool_utilization', 'Share of worker-thread time spent running tasks (0..1)', (p) => p.utilization);
    pool('leo_pool_threads', 'Worker threads alive', (p) => p.threads);
    pool('leo_pool_tasks_completed', 'Tasks the pool has completed since start', (p) => p.completed);
  }

  countRequest(route: string, method: string, status: number): void {
    this.httpRequests.inc({ route, method, status: String(status) });
  }

  async render(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}
