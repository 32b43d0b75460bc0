import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';

export interface LoopDelaySummary {
  p50: number;
  p90: number;
  p99: number;
  max: number;
}

/**
 * Watches the main thread's event-loop delay (milliseconds). The histogram restarts every window (a minute by
 * default) so a readout reflects the recent past, not the whole uptime; until the fresh window has a few seconds of
 * samples the readout is the previous window's, so a scrape right after a rotation is not empty.
 */
export class LoopDelayMonitor {
  private readonly monitor: IntervalHistogram;
  private previous: LoopDelaySummary = { p50: 0, p90: 0, p99: 0, max: 0 };
  private readonly rotation: NodeJS.Timeout;
  private readonly minSamples: number;

  constructor(windowMs = 60_000, resolutionMs = 10) {
    this.monitor = monitorEventLoopDelay({ resolution: resolutionMs });
    this.monitor.enable();
    this.minSamples = Math.ceil(5_000 / resolutionMs);
    this.rotation = setInterval(() => this.rotate(), windowMs);
    this.rotation.unref();
  }

  summary(): LoopDelaySummary {
    return this.monitor.count >= this.minSamples ? this.read() : this.previous;
  }

  stop(): void {
    clearInterval(this.rotation);
    this.monitor.disable();
  }

  private read(): LoopDelaySummary {
    const h = this.monitor;
    if (h.count === 0) return { p50: 0, p90: 0, p99: 0, max: 0 };
    return { p50: h.percentile(50) / 1e6, p90: h.percentile(90) / 1e6, p99: h.percentile(99) / 1e6, max: h.max / 1e6 };
  }

  private rotate(): void {
    this.previous = this.read();
    this.monitor.reset();
  }
}
