/**
 * What a soak run must show to pass, and its figures as tables. Pure: a SoakResult in, checks and lines out.
 * The trend limits are argued in docs/RELIABILITY.md (## Soak); in short, each sits above what the samples of a clean
 * run scatter by, and below what a leak of a few hundred bytes per send, one handle per voice note or one descriptor
 * per short-lived connection would add.
 */
import { fmt } from '../lib/report.js';
import type { Sample } from './probe.js';
import type { SoakResult } from './run-soak.js';
import { floors, perMinute, secondHalf } from './trend.js';

export interface Limits {
  /** Resident set growth over the second half of the load, MB per minute. */
  rssMbPerMin: number;
  /** Growth of the V8 heap's floor (its lowest point in each tenth of the second half), MB per minute. */
  heapFloorMbPerMin: number;
  /** Open descriptors and active handles, per minute, over the second half (their floors, like the heap). */
  fdsPerMin: number;
  handlesPerMin: number;
  /** Descriptors and handles above the baseline once every subscriber is gone and the load has stopped. */
  leftoverFds: number;
  leftoverHandles: number;
  /** Live heap (after a full collection) above the baseline's once the load is over and everyone disconnected, MB. */
  liveHeapGrowthMb: number;
  /**
   * The tmux server's resident set growth per send, KB. Scrollback grows with every line an agent prints, up to
   * history-limit (~0.5 KB per short line, measured with a tmux process per call); a tmux that keeps what it answered
   * (3.3a does, for `capture-pane -p` on a control client: ~4.4 KB per send in the soak) grows several times faster.
   */
  tmuxKbPerSend: number;
}

export const DEFAULT_LIMITS: Limits = {
  rssMbPerMin: 5,
  heapFloorMbPerMin: 2,
  fdsPerMin: 2,
  handlesPerMin: 2,
  leftoverFds: 10,
  leftoverHandles: 10,
  liveHeapGrowthMb: 10,
  tmuxKbPerSend: 1.5,
};

export interface Check {
  name: string;
  measured: string;
  limit: string;
  ok: boolean;
}

const FLOOR_WINDOWS = 10;

export interface Trends {
  rssMbPerMin: number;
  heapFloorMbPerMin: number;
  fdFloorPerMin: number;
  handleFloorPerMin: number;
  backlogPerMin: number;
  tmuxRssMbPerMin: number;
}

/** Slopes over the second half of the load, the first half being warm-up. */
export function trends(samples: readonly Sample[]): Trends {
  const late = secondHalf(samples);
  const floorSlope = (v: (s: Sample) => number) => perMinute(floors(late, v, FLOOR_WINDOWS), (f) => f.v);
  return {
    rssMbPerMin: perMinute(late, (s) => s.rssMb),
    heapFloorMbPerMin: floorSlope((s) => s.heapUsedMb),
    fdFloorPerMin: floorSlope((s) => s.fds),
    handleFloorPerMin: floorSlope((s) => s.activeHandles),
    backlogPerMin: perMinute(late, (s) => s.backlog),
    tmuxRssMbPerMin: perMinute(late, (s) => s.tmuxRssMb),
  };
}

const atMost = (name: string, v: number, max: number, digits = 2): Check => ({
  name,
  measured: fmt(v, digits),
  limit: `<= ${fmt(max, digits)}`,
  ok: Number.isFinite(v) && v <= max,
});
const equal = (name: string, v: number, want: number): Check => ({
  name,
  measured: String(v),
  limit: `= ${want}`,
  ok: v === want,
});
const entries = (r: Record<string, number>) =>
  Object.entries(r)
    .map(([k, v]) => `${k}: ${v}`)
    .join(', ') || 'none';

/**
 * `short: true` is a run of half a minute on a shared CI machine: the slopes are left out, since its second half is
 * still warm-up (the heap and the JIT settling) and says nothing about a leak, and so is holding the full send rate,
 * which is the machine's capacity, not the daemon's soundness. Everything that shows a lost, doubled or failed
 * message, an error, a dropped subscriber or a descriptor left behind is judged either way.
 */
export function evaluate(r: SoakResult, opts: { limits?: Limits; short?: boolean } = {}): Check[] {
  const limits = opts.limits ?? DEFAULT_LIMITS;
  const tr = trends(r.samples);
  const s = r.sends;
  const checks: Check[] = [
    equal('sends acknowledged (201)', s.acked, s.attempted),
    equal('sends delivered', s.delivered, s.acked),
    equal('sends failed or never settled', s.failed + s.unsettled, 0),
    equal('acknowledged sends in their thread', r.history.found, r.history.acked),
    equal(
      'sends missing, doubled or not delivered in history',
      r.history.missing + r.history.duplicates + r.history.notDelivered,
      0,
    ),
    equal('messages in history never acknowledged', r.history.unacknowledged, 0),
    equal('voice notes acknowledged', r.notes.acked, r.notes.sent),
    equal('voice notes transcribed and delivered', Math.min(r.notes.transcribed, r.notes.delivered), r.notes.acked),
    equal('subscribers connected', r.sse.connected, r.sse.subscribers),
    equal('subscribers dropped (ended early, or by the daemon)', r.sse.closedEarly + r.sse.slowConsumersDropped, 0),
    equal('events delivered to the subscribers', r.sse.delivered, r.sse.expected),
    equal('reference stream gaps or end', r.sse.referenceGaps + Number(r.sse.referenceEnded), 0),
    {
      name: 'short-lived connections that failed',
      measured: entries(r.sse.churnFailures),
      limit: 'none',
      ok: Object.keys(r.sse.churnFailures).length === 0,
    },
    {
      name: 'HTTP errors (client side)',
      measured: entries(r.httpErrors),
      limit: 'none',
      ok: Object.keys(r.httpErrors).length === 0,
    },
    equal('HTTP 4xx/5xx answered (daemon counter)', r.daemonHttpErrors, 0),
    equal("system notes in threads, but a held note's", r.systemNotes - r.heldNotes, 0),
    {
      name: 'activity sweeps kept running (pool tasks)',
      measured: String(r.poolTasks),
      limit: `>= ${Math.floor(r.sweepsExpected * 0.8)}`,
      ok: r.poolTasks >= Math.floor(r.sweepsExpected * 0.8),
    },
    equal('daemon log lines at warn or above', r.logProblems.length, 0),
    equal('daemon exit code on SIGTERM', r.daemonExit ?? -1, 0),
    {
      name: 'tmux panes throughout',
      measured: [...new Set(r.samples.map((x) => x.tmuxPanes))].join(', '),
      limit: `= ${r.options.agents}`,
      ok: r.samples.every((x) => x.tmuxPanes === r.options.agents),
    },
    ...(!opts.short
      ? [
          {
            name: 'sends held the rate',
            measured: `${fmt(s.ratePerSec, 1)}/s (${s.skipped} skipped)`,
            limit: `>= ${fmt(r.options.rate * 0.95, 1)}/s`,
            ok: s.ratePerSec >= r.options.rate * 0.95,
          },
          atMost('RSS slope, second half (MB/min)', tr.rssMbPerMin, limits.rssMbPerMin),
          atMost('heap floor slope, second half (MB/min)', tr.heapFloorMbPerMin, limits.heapFloorMbPerMin),
          atMost('fd floor slope, second half (/min)', tr.fdFloorPerMin, limits.fdsPerMin),
          atMost('active handles floor slope, second half (/min)', tr.handleFloorPerMin, limits.handlesPerMin),
          atMost('delivery backlog slope, second half (sends/min)', tr.backlogPerMin, r.options.rate * 60 * 0.01, 1),
          atMost(
            'tmux server RSS slope, second half (MB/min)',
            tr.tmuxRssMbPerMin,
            (s.ratePerSec * 60 * limits.tmuxKbPerSend) / 1024,
          ),
        ]
      : []),
    {
      name: 'fds above baseline after disconnect',
      measured: `${r.after.fds - r.baseline.fds}${r.fdGrowth ? ` (${r.fdGrowth})` : ''}`,
      limit: `<= ${limits.leftoverFds}`,
      ok: r.after.fds - r.baseline.fds <= limits.leftoverFds,
    },
    atMost(
      'active handles above baseline after disconnect',
      r.after.activeHandles - r.baseline.activeHandles,
      limits.leftoverHandles,
      0,
    ),
    // Port 9229 taken by another process leaves nothing to read; the table says so rather than failing the run.
    Number.isNaN(r.liveHeapMb.baseline)
      ? { name: 'live heap above baseline after disconnect', measured: 'n/a (no inspector)', limit: '', ok: true }
      : atMost(
          'live heap above baseline after disconnect (MB, after a full GC)',
          r.liveHeapMb.after - r.liveHeapMb.baseline,
          limits.liveHeapGrowthMb,
          1,
        ),
    equal('SSE streams open after disconnect', r.after.sseSubscribers, 0),
    equal('tmux paste buffers left after the load', r.after.tmuxBuffers, 0),
  ];
  return checks;
}

export function summaryLines(r: SoakResult): { head: string[]; rows: string[][] } {
  const all = [r.baseline, ...r.samples, r.drained, r.after];
  const max = (v: (s: Sample) => number) => Math.max(...all.map(v));
  const row = (name: string, v: (s: Sample) => number, digits = 0): string[] => [
    name,
    fmt(v(r.baseline), digits),
    fmt(v(r.samples[0] ?? r.drained), digits),
    fmt(v(r.samples.at(-1) ?? r.drained), digits),
    fmt(max(v), digits),
    fmt(v(r.after), digits),
  ];
  return {
    head: ['figure', 'baseline', 'load start', 'load end', 'max', 'after disconnect'],
    rows: [
      row('daemon RSS MB', (s) => s.rssMb),
      row('V8 heap used MB', (s) => s.heapUsedMb),
      row('V8 external MB', (s) => s.externalMb),
      row('open fds', (s) => s.fds),
      row('active handles', (s) => s.activeHandles),
      row('threads', (s) => s.threads),
      row('child processes', (s) => s.children),
      row('SSE streams', (s) => s.sseSubscribers),
      row('tmux panes', (s) => s.tmuxPanes),
      row('tmux paste buffers', (s) => s.tmuxBuffers),
      row('tmux server RSS MB', (s) => s.tmuxRssMb),
      row('delivery backlog', (s) => s.backlog),
      row('loop delay p99 ms', (s) => s.loopP99Ms),
      row('daemon CPU % of a core', (s) => s.cpuPct),
      row('machine busy %', (s) => s.machinePct),
    ],
  };
}

export function trafficLines(r: SoakResult): string[] {
  const s = r.sends;
  const tr = trends(r.samples);
  return [
    `load ${fmt(r.loadSeconds, 0)} s: ${s.attempted} sends (${fmt(s.ratePerSec, 1)}/s of ${r.options.rate}/s asked, ` +
      `${s.skipped} skipped while the daemon was behind) to ${r.options.agents} agents, ` +
      `${s.acked} acknowledged, ${s.delivered} delivered; ack p50/p99 ${fmt(s.ackP50Ms, 1)}/${fmt(s.ackP99Ms, 1)} ms, ` +
      `stored event p50/p99 ${fmt(s.storedEventP50Ms, 1)}/${fmt(s.storedEventP99Ms, 1)} ms, ` +
      `delivered into the pane p50/p99 ${fmt(s.deliveredP50Ms, 0)}/${fmt(s.deliveredP99Ms, 0)} ms`,
    `voice notes: ${r.notes.sent} sent, ${r.notes.acked} acknowledged, ${r.notes.transcribed} transcribed, ` +
      `${r.notes.delivered} delivered (p50 ${fmt(r.notes.deliveredP50Ms / 1000, 1)} s, max ` +
      `${fmt(r.notes.deliveredMaxMs / 1000, 1)} s), ${r.notes.failed} failed; pool tasks ${r.poolTasks} ` +
      `(~${r.sweepsExpected} sweeps due)`,
    `SSE: ${r.sse.connected}/${r.sse.subscribers} subscribers, ${r.sse.delivered} events delivered of ${r.sse.expected} ` +
      `expected (${r.sse.expected / Math.max(1, r.sse.connected)} marked events each); reference saw ` +
      `${r.sse.referenceEvents} events (${entries(r.sse.eventsByType)}); ${r.sse.churnOpened} short-lived ` +
      `connections; dropped by the daemon ${r.sse.slowConsumersDropped}`,
    `history: ${r.history.found}/${r.history.acked} acknowledged sends found, ${r.history.missing} missing, ` +
      `${r.history.duplicates} doubled, ${r.history.notDelivered} not delivered`,
    `trends over the second half (per minute): RSS ${fmt(tr.rssMbPerMin)} MB, heap floor ${fmt(tr.heapFloorMbPerMin)} ` +
      `MB, fd floor ${fmt(tr.fdFloorPerMin)}, handle floor ${fmt(tr.handleFloorPerMin)}, backlog ${fmt(tr.backlogPerMin)}, ` +
      `tmux server RSS ${fmt(tr.tmuxRssMbPerMin)} MB`,
    `live heap after a full GC: ${fmt(r.liveHeapMb.baseline, 1)} MB at the baseline, ${fmt(r.liveHeapMb.drained, 1)} ` +
      `MB once drained (subscribers connected), ${fmt(r.liveHeapMb.after, 1)} MB after disconnect`,
    ...(r.logProblems.length ? [`daemon log: ${r.logProblems.slice(0, 5).join(' | ')}`] : []),
  ];
}
