/**
 * What the fan-out benchmark's processes share: the marker every published event carries, the shared clock it is
 * stamped with, the latency histogram, and the JSON lines the parent and the load generator exchange.
 */

/**
 * CLOCK_MONOTONIC in ms with fractions. It is one clock for every process on the machine (unlike performance.now(),
 * whose origin is per process, or Date.now(), which NTP can step), so a stamp taken by the publisher can be
 * subtracted from one taken by the load generator.
 */
export function sharedNowMs(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}

/** Put inside the event's payload (Leo: `run.workspace`): `fanout:<seq>:<publish ms>`, then any padding. */
export const MARKER = 'fanout:';

export function marker(seq: number, publishedMs: number, pad = ''): string {
  return `${MARKER}${seq}:${publishedMs.toFixed(4)}${pad ? `:${pad}` : ''}`;
}

/**
 * Latency buckets: 10 µs wide below 10 ms (where a healthy fan-out sits), 1 ms wide up to a minute. Counting into a
 * fixed array keeps the load generator's per-event cost to an increment, which matters at millions of deliveries/s.
 */
const FINE_MS = 10;
const FINE_PER_MS = 100;
const FINE_BUCKETS = FINE_MS * FINE_PER_MS;
const COARSE_BUCKETS = 60_000;

export class Histogram {
  readonly counts = new Float64Array(FINE_BUCKETS + COARSE_BUCKETS + 1);
  count = 0;
  max = 0;

  add(ms: number): void {
    const v = ms < 0 ? 0 : ms;
    const i =
      v < FINE_MS
        ? Math.floor(v * FINE_PER_MS)
        : Math.min(FINE_BUCKETS + COARSE_BUCKETS, FINE_BUCKETS + Math.floor(v - FINE_MS));
    this.counts[i]!++;
    this.count++;
    if (v > this.max) this.max = v;
  }

  clear(): void {
    this.counts.fill(0);
    this.count = 0;
    this.max = 0;
  }

  /** Upper edge of the bucket holding the q-quantile, so a reported p99 is never below the true one. */
  quantile(q: number): number {
    if (this.count === 0) return NaN;
    const rank = Math.max(1, Math.ceil(q * this.count));
    let seen = 0;
    for (let i = 0; i < this.counts.length; i++) {
      seen += this.counts[i]!;
      if (seen >= rank) {
        const edge = i < FINE_BUCKETS ? (i + 1) / FINE_PER_MS : FINE_MS + (i - FINE_BUCKETS + 1);
        return Math.min(edge, this.max);
      }
    }
    return this.max;
  }
}

/** Parent → load generator, one JSON object a line on its stdin. */
export type Command =
  | {
      cmd: 'open';
      group: string;
      host: string;
      port: number;
      path: string;
      headers: Record<string, string>;
      count: number;
      /** Stop reading once connected: the slow consumer of the storm check. */
      stall?: boolean;
    }
  /** Starts a new measuring window: only events with seq >= from are counted in it. */
  | { cmd: 'step'; from: number }
  | { cmd: 'progress' }
  | { cmd: 'collect' }
  | { cmd: 'resume'; group: string }
  | { cmd: 'close' };

export interface GroupCounts {
  open: number;
  /** Connections that ended or failed since they were opened. */
  closed: number;
  /** Events this group's connections received since they were opened, whatever the window. */
  delivered: number;
}

export interface StepStats {
  delivered: number;
  bytes: number;
  firstRecvMs: number;
  lastRecvMs: number;
  p50: number;
  p99: number;
  max: number;
}

/** Load generator → parent, one JSON object a line on its stdout. */
export type Reply =
  | { type: 'ready'; pid: number }
  | { type: 'opened'; group: string; connected: number; failed: number; ms: number; error?: string }
  | { type: 'progress'; delivered: number; lastRecvMs: number; groups: Record<string, GroupCounts> }
  | { type: 'collected'; stats: StepStats; groups: Record<string, GroupCounts> }
  | { type: 'resumed'; group: string }
  | { type: 'closed' }
  | { type: 'error'; message: string };
