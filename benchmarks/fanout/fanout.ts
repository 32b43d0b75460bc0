/**
 * How Leo's SSE fan-out (/api/v1/events) compares with nginx + nchan and with a bare node:http SSE server, side by
 * side in one run: one load generator (a separate process, load-generator.ts) holds N SSE connections to each server
 * while this process publishes events to one server at a time at rising rates, the servers taking turns at each
 * rate, and each (server, N, rate) gets deliveries/s, publish → receive latency, subscribers lost, and the server's
 * CPU and memory from /proc. Then a slow-consumer storm: subscribers that stop reading while events keep coming, to
 * show which servers stay bounded.
 *
 *   npx tsc -p tsconfig.json && node dist/benchmarks/fanout/fanout.js [--subscribers 100,1000,5000]
 *     [--rates 50,200,1000] [--seconds 3] [--targets leo,nchan,floor] [--storm-subscribers 20] [--storm-seconds 10]
 *     [--storm-only] [--cpu-prof] [--budget 270]
 *
 * Leo runs as `node bin/leo.js daemon` in a throwaway LEO_HOME and is published to through the socket-only
 * `POST /observe/task-run` (each accepted body fans out one task_run_started event); nchan and the floor are sent the
 * same data line Leo's frame carries. Loopback only; asserts nothing. With --cpu-prof the daemon runs under
 * `node --cpu-prof` and the profile's summary is printed at the end (the file is kept).
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { flag, int, ints, options, text } from '../lib/options.js';
import { summarizeProfile } from './cpu-profile.js';
import { Generator } from './generator.js';
import { ensureNchan, NGINX_BIN } from './nchan-setup.js';
import { busyPct, cpuMs, machineJiffies, rssMb, sleep } from './proc.js';
import { sharedNowMs, type StepStats } from './protocol.js';
import { NGINX_WORKERS, startFloor, startLeo, startNchan, type Target, type TargetName } from './targets.js';

/** How long a step may keep draining after its last publish: what is still missing then counts as not delivered. */
const DRAIN_MS = 3_000;
/** A drain also ends when nothing more arrived for this long (a server that lost events will not send them). */
const STALL_MS = 1_000;
/** Publishes in flight at once; beyond it the publisher falls behind, which the pub/s column shows. */
const MAX_INFLIGHT = 64;
/** The bar for "sustained": everything delivered, the publish rate held, nobody lost, and no backlog building. */
const SUSTAINED_P99_MS = 1_000;
const WARMUP_MS = 600;
const STORM_NORMAL = 100;
/** Storm events are padded to about 1 KB, so stalled sockets fill their kernel buffers within the run. */
const STORM_PAD = 'x'.repeat(800);
const STORM_RATE = 1_000;

const values = options({
  subscribers: ints([100, 1000, 5000]),
  rates: ints([50, 200, 1000]),
  seconds: int(3),
  targets: text('leo,nchan,floor'),
  'storm-subscribers': int(20, 0),
  'storm-seconds': int(10),
  'storm-only': flag(),
  'cpu-prof': flag(),
  budget: int(270, 30),
});

const sizes = values.subscribers.sort((a, b) => a - b);
const rates = values.rates.sort((a, b) => a - b);
const seconds = values.seconds;
const stormStalled = values['storm-subscribers'];
const stormSeconds = values['storm-seconds'];
const budgetMs = values.budget * 1000;
const wanted = values.targets.split(',').map((s) => s.trim()) as TargetName[];
for (const t of wanted)
  if (!['leo', 'nchan', 'floor'].includes(t)) throw new Error(`--targets: unknown target "${t}" (leo, nchan, floor)`);
/** Deep enough that no step's events (rate × seconds, plus the drain) can fill it: the run measures throughput, and
 * Leo's drop policy has its own check, the storm, at the default bound. */
const sseQueue = Math.max(1024, Math.max(...rates) * (seconds + DRAIN_MS / 1000) * 2);

// ---------------------------------------------------------------------------------------------------------------
// Children and cleanup

const started = performance.now();
const targets: Target[] = [];
let generator: Generator | null = null;
let profDir: string | null = null;

let cleaned = false;
/** Synchronous, so it also runs from the exit and signal handlers: SIGKILL whatever is still running. */
function cleanupSync(): void {
  if (cleaned) return;
  cleaned = true;
  generator?.kill();
  for (const t of targets) t.kill();
  if (profDir) fs.rmSync(profDir, { recursive: true, force: true });
}
process.on('exit', cleanupSync);
let interrupted = false;
for (const sig of ['SIGINT', 'SIGTERM'] as const)
  process.on(sig, () => {
    // A second signal does not wait for the graceful stop.
    if (interrupted) process.exit(130);
    interrupted = true;
    generator?.kill();
    // Stopped and waited for, nginx's master reaps its workers and we reap it; the exit handler SIGKILLs the rest.
    void Promise.race([Promise.all(targets.map((t) => t.stop().catch(() => {}))), sleep(5_000)]).then(() =>
      process.exit(130),
    );
  });

// ---------------------------------------------------------------------------------------------------------------
// Publishing and measuring

/** One sequence across all servers, so a straggler from one server's step can never count in another's. */
let nextSeq = 1;

/**
 * Publishes at `rate` for `ms`, paced against the clock (not one after the other), so a server that answers slowly
 * makes the publisher fall behind rather than silently lowering the offered rate.
 */
function drive(t: Target, rate: number, ms: number, pad = ''): Promise<{ ok: number; failed: number }> {
  const total = Math.round((rate * ms) / 1000);
  const t0 = performance.now();
  let issued = 0;
  let inflight = 0;
  let ok = 0;
  let failed = 0;
  let over = false;
  return new Promise((resolve) => {
    const tick = () => {
      const elapsed = performance.now() - t0;
      over = elapsed >= ms;
      const due = Math.min(total, Math.floor((rate * Math.min(elapsed, ms)) / 1000));
      while (issued < due && inflight < MAX_INFLIGHT) {
        issued++;
        inflight++;
        void t.publish(nextSeq++, pad).then((accepted) => {
          inflight--;
          if (accepted) ok++;
          else failed++;
          if (over && inflight === 0) finish();
        });
      }
      if (!over) setTimeout(tick, 1);
      else if (inflight === 0) finish();
    };
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      resolve({ ok, failed });
    };
    tick();
  });
}

interface Row {
  target: TargetName;
  n: number;
  rate: number;
  pubPerS: number;
  deliveriesPerS: number;
  gotPct: number;
  stats: StepStats;
  lost: number;
  /** Over the publishing window only: the drain after it would dilute a saturated server's figure. */
  cpuPct: number | null;
  machinePct: number | null;
  rss: number | null;
  peakRss: number | null;
  usPerDelivery: number | null;
  genCpuPct: number | null;
  sustained: boolean;
}

/** Peak RSS of `pids`, sampled every 200 ms until stop() is called. */
function rssSampler(pids: () => number[]): { stop(): number | null } {
  let peak = rssMb(pids());
  const timer = setInterval(() => {
    const v = rssMb(pids());
    if (v !== null && (peak === null || v > peak)) peak = v;
  }, 200);
  return {
    stop() {
      clearInterval(timer);
      const v = rssMb(pids());
      return v !== null && (peak === null || v > peak) ? v : peak;
    },
  };
}

/** Waits until `expected` events arrived, nothing more has arrived for `stallMs`, or `maxMs` passed. */
async function drain(gen: Generator, expected: number, maxMs = DRAIN_MS, stallMs = STALL_MS): Promise<void> {
  const t0 = performance.now();
  let last = -1;
  let lastChange = t0;
  for (;;) {
    const p = await gen.request({ cmd: 'progress' }, 'progress');
    const now = performance.now();
    if (p.delivered >= expected) return;
    if (p.delivered !== last) {
      last = p.delivered;
      lastChange = now;
    }
    if (now - lastChange > stallMs || now - t0 > maxMs) return;
    await sleep(50);
  }
}

async function step(gen: Generator, t: Target, n: number, rate: number, ms: number): Promise<Row> {
  const before = await gen.request({ cmd: 'step', from: nextSeq }, 'progress');
  const connected = before.groups[t.name]?.open ?? 0;
  const cpu0 = cpuMs(t.pids());
  const gen0 = cpuMs([gen.pid]);
  const m0 = machineJiffies();
  const w0 = performance.now();
  const rss = rssSampler(() => t.pids());
  const pubStart = sharedNowMs();
  const pub = await drive(t, rate, ms);
  const pubWall = performance.now() - w0;
  const cpuPub = cpuMs(t.pids());
  const genPub = cpuMs([gen.pid]);
  const m1 = machineJiffies();
  const expected = pub.ok * connected;
  await drain(gen, expected);
  const { stats, groups } = await gen.request({ cmd: 'collect' }, 'collected');
  const cpu1 = cpuMs(t.pids());
  const peakRss = rss.stop();
  // A backlog still being written would load the machine during the next server's step: wait for it to end.
  if (stats.delivered < expected) await drain(gen, Number.POSITIVE_INFINITY, 10_000, 500);
  const lost = connected - (groups[t.name]?.open ?? 0);
  const span = stats.delivered > 0 ? Math.max(stats.lastRecvMs - pubStart, ms) : ms;
  const deliveriesPerS = (stats.delivered * 1000) / span;
  const gotPct = expected > 0 ? (100 * stats.delivered) / expected : 0;
  const pubPerS = (pub.ok * 1000) / ms;
  const cpu = cpu0 !== null && cpu1 !== null ? cpu1 - cpu0 : null;
  return {
    target: t.name,
    n,
    rate,
    pubPerS,
    deliveriesPerS,
    gotPct,
    stats,
    lost,
    cpuPct: cpu0 !== null && cpuPub !== null ? (100 * (cpuPub - cpu0)) / pubWall : null,
    machinePct: busyPct(m0, m1),
    rss: rssMb(t.pids()),
    peakRss,
    usPerDelivery: cpu === null || stats.delivered === 0 ? null : (cpu * 1000) / stats.delivered,
    genCpuPct: gen0 !== null && genPub !== null ? (100 * (genPub - gen0)) / pubWall : null,
    sustained:
      gotPct >= 99.9 && pubPerS >= 0.95 * rate && lost === 0 && pub.failed === 0 && stats.p99 < SUSTAINED_P99_MS,
  };
}

// ---------------------------------------------------------------------------------------------------------------
// Output

const fmt = (v: number | null | undefined, digits = 1) =>
  v === null || v === undefined || Number.isNaN(v) ? 'n/a' : v.toFixed(digits);
const big = (v: number) => Math.round(v).toLocaleString('en-US');

function table(head: string[], body: string[][], left = 1): string[] {
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]!.length)));
  const line = (cells: string[]) =>
    `| ${cells.map((c, i) => (i < left ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join(' | ')} |`;
  return [line(head), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...body.map(line)];
}

function printRows(rows: Row[]): void {
  const head = [
    'target',
    'N',
    'rate/s',
    'pub/s',
    'deliveries/s',
    'got %',
    'p50 ms',
    'p99 ms',
    'max ms',
    'lost',
    'CPU %',
    'RSS MB',
    'peak MB',
    'CPU µs/dlv',
    'gen CPU %',
    'machine %',
    'sustained',
  ];
  const body = rows.map((r) => [
    r.target,
    String(r.n),
    String(r.rate),
    fmt(r.pubPerS, 0),
    big(r.deliveriesPerS),
    fmt(r.gotPct, 1),
    fmt(r.stats.p50, 2),
    fmt(r.stats.p99, 2),
    fmt(r.stats.max, 1),
    String(r.lost),
    fmt(r.cpuPct, 0),
    fmt(r.rss, 0),
    fmt(r.peakRss, 0),
    fmt(r.usPerDelivery, 2),
    fmt(r.genCpuPct, 0),
    fmt(r.machinePct, 0),
    r.sustained ? 'yes' : 'NO',
  ]);
  for (const l of table(head, body)) console.log(l);
}

function ratio(a: number | null | undefined, b: number | null | undefined): string {
  return a == null || b == null || !Number.isFinite(a) || !Number.isFinite(b) || b === 0
    ? 'n/a'
    : `${(a / b).toFixed(2)}x`;
}

function printRatios(rows: Row[]): void {
  const others = (['floor', 'nchan'] as const).filter((o) => rows.some((r) => r.target === o));
  if (!rows.some((r) => r.target === 'leo') || others.length === 0) return;
  const body: string[][] = [];
  for (const n of sizes) {
    const at = rows.filter((r) => r.n === n);
    const get = (t: TargetName, rate: number | undefined) => at.find((r) => r.target === t && r.rate === rate);
    const present = [...new Set(at.map((r) => r.target))];
    const highestSustained = (ts: TargetName[]) =>
      rates.filter((rate) => ts.every((t) => get(t, rate)?.sustained)).at(-1);
    const peak = (t: TargetName) => {
      const rs = at.filter((r) => r.target === t);
      return rs.length ? Math.max(...rs.map((r) => r.deliveriesPerS)) : undefined;
    };
    // A server that never saturated only shows the offered load as its peak: its ratio is a lower bound.
    const capped = (t: TargetName) => (at.some((r) => r.target === t && !r.sustained) ? '' : '*');
    const all = highestSustained(present);
    for (const o of others) {
      const both = highestSustained(['leo', o]);
      body.push([
        String(n),
        o,
        all === undefined ? 'none' : `${all}/s`,
        ratio(get('leo', all)?.deliveriesPerS, get(o, all)?.deliveriesPerS),
        ratio(get('leo', all)?.usPerDelivery, get(o, all)?.usPerDelivery),
        both === undefined ? 'none' : `${both}/s`,
        ratio(get('leo', both)?.deliveriesPerS, get(o, both)?.deliveriesPerS),
        ratio(get('leo', both)?.usPerDelivery, get(o, both)?.usPerDelivery),
        `${big(peak('leo') ?? 0)}${capped('leo')}`,
        `${big(peak(o) ?? 0)}${capped(o)}`,
        ratio(peak('leo'), peak(o)),
      ]);
    }
  }
  console.log(
    '\nLeo / the others: deliveries/s (above 1 = Leo delivers more) and server CPU per delivery (below 1 = Leo spends ' +
      'less), at the highest rate all servers sustained, at the highest rate Leo and that one both sustained, and at ' +
      'saturation (the best deliveries/s of each at that N; * = never saturated, so that peak is only the offered load)',
  );
  const head = [
    'N',
    'Leo vs',
    'all sustained',
    'dlv/s',
    'CPU/dlv',
    'both sustained',
    'dlv/s',
    'CPU/dlv',
    'Leo peak dlv/s',
    'its peak dlv/s',
    'peak ratio',
  ];
  for (const l of table(head, body, 2)) console.log(l);
}

interface StormResult {
  target: TargetName;
  normal: number;
  stalled: number;
  /** RSS before, then at each quarter of the storm. */
  timeline: (number | null)[];
  rssPeak: number | null;
  normalGotPct: number;
  normalP99: number;
  stalledEnded: number;
  stalledGot: number;
  published: number;
  leoDropped: number | null;
  firstDropS: number | null;
}

function droppedIn(metrics: string): number | null {
  const m = /^leo_sse_slow_consumers_dropped_total(?:\{[^}]*\})? (\d+)/m.exec(metrics);
  return m ? Number(m[1]) : null;
}

function printStorm(results: StormResult[]): void {
  if (results.length === 0) return;
  console.log(
    `\nslow-consumer storm: ${STORM_NORMAL} readers + ${stormStalled} subscribers that stop reading once connected,` +
      ` ${STORM_RATE} events/s of ~1 KB for ${stormSeconds} s (Leo at its default web.sse_queue, 1024)`,
  );
  const head = [
    'target',
    'published',
    'RSS MB: before, each quarter',
    'peak MB',
    'readers got %',
    'readers p99 ms',
    'stalled ended',
    'events a stalled one got',
    'Leo dropped (metrics)',
    'first drop at s',
  ];
  const body = results.map((s) => [
    s.target,
    String(s.published),
    s.timeline.map((v) => fmt(v, 0)).join(' → '),
    fmt(s.rssPeak, 0),
    fmt(s.normalGotPct, 1),
    fmt(s.normalP99, 2),
    `${s.stalledEnded}/${s.stalled}`,
    s.stalled ? fmt(s.stalledGot / s.stalled, 0) : 'n/a',
    s.leoDropped === null ? '–' : String(s.leoDropped),
    s.firstDropS === null ? '–' : fmt(s.firstDropS, 1),
  ]);
  for (const l of table(head, body)) console.log(l);
}

// ---------------------------------------------------------------------------------------------------------------
// The run

const rows: Row[] = [];
const storms: StormResult[] = [];
const notes: string[] = [];
let reported = false;

function report(): void {
  if (reported) return;
  reported = true;
  console.log(
    `\n${seconds} s per rate after a ${WARMUP_MS} ms warm-up; deliveries/s = events received by all subscribers / ` +
      `(last receive - first publish); latency publish -> receive on CLOCK_MONOTONIC; got % of accepted publishes x ` +
      `subscribers; lost = subscribers disconnected; CPU % (of one core, while publishing) and RSS of the server ` +
      `(nginx: master + workers); CPU µs/dlv = the server's CPU over the whole step / deliveries; gen = the load ` +
      `generator; machine % = all ${os.cpus().length} cores busy, whoever used them; sustained = got >= 99.9 %, pub/s >= 95 % of the rate, none lost, p99 < ` +
      `${SUSTAINED_P99_MS} ms. A saturated step ends that server's climb for that N; at each rate the servers take turns.\n`,
  );
  if (rows.length > 0) {
    printRows(rows);
    // The same payload was the aim; what each server wraps it in (chunk sizes, nchan's id: line) is the difference.
    const perTarget = [...new Set(rows.map((r) => r.target))].map((t) => {
      const rs = rows.filter((r) => r.target === t);
      const bytes = rs.reduce((a, r) => a + r.stats.bytes, 0);
      const events = rs.reduce((a, r) => a + r.stats.delivered, 0);
      return `${t} ${events ? fmt(bytes / events, 0) : 'n/a'}`;
    });
    console.log(`\nbytes on the wire per event, HTTP framing included: ${perTarget.join(', ')}`);
  }
  printRatios(rows);
  printStorm(storms);
  for (const n of notes) console.log(n);
  console.log(`\ntotal ${fmt((performance.now() - started) / 1000)} s`);
}

setTimeout(() => {
  console.log(`\n(aborting: over the ${budgetMs / 1000} s budget; what was measured so far:)`);
  report();
  process.exit(1);
}, budgetMs).unref();

/** Progress goes to stderr, so stdout (what `npm run bench` saves) holds the set-up, the tables and the notes. */
const progress = (line: string) => console.error(line);

const remaining = () => budgetMs - (performance.now() - started);

/**
 * One subscriber count: N connections to every server at once (idle ones cost nothing), then each rate for each
 * server in turn, so drifting background load on a shared machine hits the servers alike rather than whichever one
 * happened to run during it.
 */
async function measureSize(gen: Generator, servers: Target[], n: number): Promise<void> {
  // Each step needs its publishing time, the drain and some slack; a run cut off mid-step reports nothing of it.
  const need = seconds * 1000 + DRAIN_MS + 2_000;
  if (remaining() < need + 5_000) {
    notes.push(`(skipped N=${n}: time budget)`);
    return;
  }
  const connected = new Map<TargetName, number>();
  for (const t of servers) connected.set(t.name, await gen.open(t, t.name, n));
  progress(`N=${n}: subscribers connected: ${servers.map((t) => `${t.name} ${connected.get(t.name)}`).join(', ')}`);
  await sleep(300);
  const live = servers.filter((t) => connected.get(t.name)! > 0);
  for (const t of live) {
    // Unmeasured: JIT, the publisher's kept-alive connections, the server's first write to each socket.
    await gen.request({ cmd: 'step', from: nextSeq }, 'progress');
    const warm = await drive(t, rates[0]!, WARMUP_MS);
    await drain(gen, warm.ok * connected.get(t.name)!);
  }
  const saturated = new Set<TargetName>();
  for (const rate of rates)
    for (const t of live) {
      if (saturated.has(t.name)) continue;
      if (remaining() < need) {
        notes.push(`(skipped ${t.name} N=${n} ${rate}/s: time budget)`);
        continue;
      }
      const row = await step(gen, t, n, rate, seconds * 1000);
      rows.push(row);
      progress(
        `  ${t.name} N=${n} ${rate}/s: ${big(row.deliveriesPerS)} deliveries/s, p99 ${fmt(row.stats.p99, 2)} ms, ` +
          `CPU ${fmt(row.cpuPct, 0)} %${row.sustained ? '' : ' (saturated)'}`,
      );
      if (!row.sustained) saturated.add(t.name);
    }
  await gen.request({ cmd: 'close' }, 'closed');
  // Let the servers see the disconnects before the next N is measured.
  await sleep(500);
}

async function storm(gen: Generator, t: Target): Promise<void> {
  const leoMetrics = t.metrics?.bind(t);
  const normal = await gen.open(t, 'readers', STORM_NORMAL);
  const stalled = await gen.open(t, 'stalled', stormStalled, true);
  await sleep(300);
  const rssBefore = rssMb(t.pids());
  await gen.request({ cmd: 'step', from: nextSeq }, 'progress');
  const rss = rssSampler(() => t.pids());
  // RSS at each quarter of the storm: bounded memory is a flat line once the slow ones are gone, a buffer is a ramp.
  const timeline: (number | null)[] = [rssBefore];
  const quarters = setInterval(() => timeline.push(rssMb(t.pids())), (stormSeconds * 1000) / 4);
  const t0 = performance.now();
  let firstDropS: number | null = null;
  let polling = Promise.resolve();
  const poll = leoMetrics
    ? setInterval(() => {
        polling = leoMetrics()
          .then((m) => {
            if (firstDropS === null && (droppedIn(m) ?? 0) > 0) firstDropS = (performance.now() - t0) / 1000;
          })
          .catch(() => {});
      }, 250)
    : null;
  const pub = await drive(t, STORM_RATE, stormSeconds * 1000, STORM_PAD);
  clearInterval(quarters);
  if (poll) clearInterval(poll);
  await polling;
  await drain(gen, pub.ok * normal);
  const { stats } = await gen.request({ cmd: 'collect' }, 'collected');
  const rssPeak = rss.stop();
  const rssEnd = rssMb(t.pids());
  if (timeline.length < 5) timeline.push(rssEnd);
  await gen.request({ cmd: 'resume', group: 'stalled' }, 'resumed');
  // Long enough to read what the kernel buffered for them and reach the end of the streams the server cut.
  await sleep(2_000);
  const after = await gen.request({ cmd: 'progress' }, 'progress');
  const leoDropped = leoMetrics ? droppedIn(await leoMetrics()) : null;
  storms.push({
    target: t.name,
    normal,
    stalled,
    timeline,
    rssPeak,
    normalGotPct: pub.ok * normal ? (100 * stats.delivered) / (pub.ok * normal) : 0,
    normalP99: stats.p99,
    stalledEnded: after.groups.stalled?.closed ?? 0,
    stalledGot: after.groups.stalled?.delivered ?? 0,
    published: pub.ok,
    leoDropped,
    firstDropS,
  });
  await gen.request({ cmd: 'close' }, 'closed');
  await sleep(300);
}

function versions(): string {
  const nginx = spawnSync(NGINX_BIN, ['-v'], { encoding: 'utf8' }).stderr.trim();
  const nchan = spawnSync('dpkg-query', ['-W', '-f=${Version}', 'libnginx-mod-nchan'], { encoding: 'utf8' }).stdout;
  return `${nginx.replace('nginx version: ', '')}, nchan ${nchan || '?'}`;
}

async function main(): Promise<void> {
  const cpus = os.cpus();
  // Other work on the machine takes cores from every row alike; say how much there was before anything started.
  const m0 = machineJiffies();
  await sleep(1_000);
  const background = busyPct(m0, machineJiffies());
  console.log(
    `fan-out: ${cpus.length} cores (${cpus[0]?.model.trim() ?? '?'}), Node ${process.version}; ` +
      `N = ${sizes.join(', ')}; rates ${rates.join(', ')}/s; Leo web.sse_queue ${sseQueue}; ` +
      `machine busy before starting: ${fmt(background, 0)} %`,
  );
  let order = wanted;
  if (order.includes('nchan')) {
    try {
      ensureNchan();
      console.log(
        `nchan: ${versions()}, worker_processes ${NGINX_WORKERS} (one worker, to set one nginx event loop against ` +
          `Leo's one Node event loop; nginx would otherwise use every core)`,
      );
    } catch (err) {
      console.log(`(nchan left out: ${(err as Error).message})`);
      order = order.filter((t) => t !== 'nchan');
    }
  }
  generator = await Generator.start();
  const gen = generator;
  if (values['cpu-prof']) profDir = fs.mkdtempSync(path.join(os.tmpdir(), 'leo-bench-fanout-prof-'));
  const servers: Target[] = [];
  for (const name of order) {
    const t =
      name === 'leo'
        ? await startLeo({ sseQueue, ...(profDir ? { cpuProfDir: profDir } : {}) })
        : name === 'nchan'
          ? await startNchan()
          : await startFloor();
    targets.push(t);
    servers.push(t);
  }
  progress(`servers up (${order.join(', ')}); load generator pid ${gen.pid}`);

  if (!values['storm-only']) for (const n of sizes) await measureSize(gen, servers, n);

  if (stormStalled > 0) {
    for (const name of order) {
      if (remaining() < stormSeconds * 1000 + 15_000) {
        notes.push(`(storm skipped for ${name}: time budget)`);
        continue;
      }
      // Fresh servers, so RSS starts from a clean heap rather than from what the 5 000-subscriber steps left; Leo at
      // the default web.sse_queue, because the bound users run with is the one that matters here.
      const t = name === 'leo' ? await startLeo() : name === 'nchan' ? await startNchan() : await startFloor();
      targets.push(t);
      progress(`storm: ${name} (fresh server)`);
      await storm(gen, t);
      await t.stop();
    }
  }
  report();

  for (const t of targets) await t.stop();
  if (profDir) {
    const file = fs.readdirSync(profDir).find((f) => f.endsWith('.cpuprofile'));
    if (!file) console.log('\n(no CPU profile was written: did the daemon exit cleanly?)');
    else {
      const kept = path.join(os.tmpdir(), `leo-fanout-${process.pid}.cpuprofile`);
      fs.copyFileSync(path.join(profDir, file), kept);
      console.log(`\nLeo daemon CPU profile (whole run, kept at ${kept}):`);
      for (const line of summarizeProfile(kept)) console.log(`  ${line}`);
    }
  }
}

main()
  .catch((err) => {
    // After a signal the run fails on purpose (its servers are going away): the signal handler owns the exit.
    if (interrupted) return;
    console.error(err);
    process.exitCode = 1;
  })
  .finally(() => {
    if (!interrupted) cleanupSync();
  });
