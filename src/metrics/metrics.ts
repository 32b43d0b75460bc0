import { Counter, Gauge, Registry, collectDefaultMetrics } from 'prom-client';
import type { LoopDelaySummary } from './loop-delay.js';

/** Readouts the metrics registry pulls at scrape time; each comes from the service that owns the number. */
export interface MetricSources {
  loopDelay(): LoopDelaySummary;
  sse(): { subscribers: number; dropped: number };
  eventsPublished(): number;
  pool(): { queueSize: number; utilization: number; threads: number; completed: number };
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
