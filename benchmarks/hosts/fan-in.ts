/**
 * A hub following several hosts (issue 31): what the owner's app feels and what the hub pays, in one run.
 *
 * The hub is the real daemon in-process on the real clock; the hosts are `--hosts` fake hosts with `--agents` agents
 * each in one child process (fake-hosts.ts), each behind a fault proxy there; the app is an SSE reader on a worker
 * thread (app-client.ts); the /api/v1/state load runs on another worker (lib/http-load.ts). Rows:
 *   - one per total event rate (`--rates`): host event → hub → app latency p50/p99, the hub's event-loop delay p99
 *     and utilisation, its /api/v1/state p99 under that traffic, and its RSS;
 *   - the same with the proxies adding 20 ms each way (a slower link);
 *   - one host hung mid-response (its proxy lets no more of an answer through: its open stream goes silent, a new
 *     request gets a few bytes) while the others go on, with the others' latency beside the same rate's healthy row.
 * The real daemons over veth are hop.ts.
 *
 *   npx tsc -p tsconfig.json && node dist/benchmarks/hosts/fan-in.js [--hosts 10] [--agents 50]
 *     [--rates 100,500,1000,2000] [--seconds 4]
 *
 * Loopback only, asserts nothing; the hosts' child is killed and the hub's home removed on exit.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import readline from 'node:readline';
import { setConfigKey } from '../../src/config/config-file.js';
import { systemClock } from '../../src/core/clock.js';
import { PeerTokenFiles } from '../../src/hosts/peer-token-files.js';
import { StateSnapshot } from '../../src/wire/fleet.js';
import { killTmuxServer, startTestDaemon, type TestDaemon } from '../../test/helpers/daemon.js';
import { LoadClient } from '../lib/http-load.js';
import { int, ints, options } from '../lib/options.js';
import { fmt, machineLine, quantile, runGuarded, table } from '../lib/report.js';
import { AppClient, type Latencies } from './app-client.js';

const BUDGET_MS = 300_000;
const GOAL_HOP_P99_MS = 250;
const GOAL_LOOP_P99_MS = 20;

const {
  hosts: HOSTS,
  agents: AGENTS,
  rates: RATES,
  seconds: SECONDS,
} = options({ hosts: int(10), agents: int(50), rates: ints([100, 500, 1000, 2000]), seconds: int(4) });

let hub: TestDaemon | undefined;
let hosts: ChildProcess | undefined;
let app: AppClient | undefined;
const loads = new LoadClient();

function cleanupSync(): void {
  hosts?.kill('SIGKILL');
  if (hub) {
    killTmuxServer(hub.home);
    fs.rmSync(hub.home, { recursive: true, force: true });
  }
}

async function cleanup(): Promise<void> {
  await app?.close();
  await loads.close();
  await hub?.stop().catch(() => undefined);
  cleanupSync();
}

/** The hosts' child, and a way to send it a command and wait for its acknowledgement. */
async function startHosts(): Promise<{ ports: number[]; command(c: object): Promise<void> }> {
  const child = (hosts = spawn(
    process.execPath,
    [path.join(import.meta.dirname, 'fake-hosts.js'), '--hosts', String(HOSTS), '--agents', String(AGENTS)],
    { stdio: ['pipe', 'pipe', 'inherit'] },
  ));
  const lines = readline.createInterface({ input: child.stdout! })[Symbol.asyncIterator]();
  const next = async () => JSON.parse((await lines.next()).value as string) as { ports?: number[] };
  const { ports } = await next();
  return {
    ports: ports!,
    async command(c) {
      child.stdin!.write(`${JSON.stringify(c)}\n`);
      await next();
    },
  };
}

async function hubState(d: TestDaemon): Promise<StateSnapshot> {
  return d.get('/api/v1/state', StateSnapshot);
}

interface Row {
  label: string;
  rate: number;
  latencies: number[];
  /** Per host, for the hung row's comparison. */
  byHost: Latencies;
  loopP99: number;
  elu: number;
  stateP99: number;
  /** The whole process: the hub and this benchmark's two reader threads (each an isolate of its own). */
  rssMb: number;
  /** The hub's own isolate: what following the hosts holds. */
  heapMb: number;
}

/** `rate` events a second for SECONDS after a 1 s warm-up; with `state`, a closed loop of /api/v1/state reads too. */
async function step(
  d: TestDaemon,
  label: string,
  rate: number,
  command: (c: object) => Promise<void>,
  state = false,
): Promise<Row> {
  await command({ rate });
  await new Promise((r) => setTimeout(r, 1_000));
  await app!.take();
  const loop = monitorEventLoopDelay({ resolution: 10 });
  loop.enable();
  const elu0 = performance.eventLoopUtilization();
  const reads = state
    ? await loads.run({
        port: d.daemon.port,
        method: 'GET',
        headers: { authorization: `Bearer ${d.daemon.operatorToken}` },
        requests: [{ path: '/api/v1/state' }],
        concurrency: 1,
        warmupMs: 0,
        measureMs: SECONDS * 1000,
      })
    : (await new Promise((r) => setTimeout(r, SECONDS * 1000)), null);
  loop.disable();
  const elu = performance.eventLoopUtilization(elu0).utilization;
  const byHost = await app!.take();
  await command({ rate: 0 });
  return {
    label,
    rate,
    latencies: Object.values(byHost).flat(),
    byHost,
    // The histogram counts the 10 ms sampling interval itself.
    loopP99: Math.max(0, loop.percentile(99) / 1e6 - 10),
    elu,
    stateP99: reads ? quantile(reads.latencies, 0.99) : NaN,
    rssMb: process.memoryUsage().rss / 2 ** 20,
    heapMb: process.memoryUsage().heapUsed / 2 ** 20,
  };
}

async function main(): Promise<void> {
  console.log(machineLine());
  const d = (hub = await startTestDaemon({ clock: systemClock }));
  const { ports, command } = await startHosts();
  // Paired as `leo host add` leaves a hub: a token file per host, then client.hosts, which the reload follows.
  const tokens = new PeerTokenFiles(path.join(d.home, 'state', 'hosts'));
  ports.forEach((port, h) => {
    tokens.write(`h${h}`, `leo_peer_bench${h}`);
    const written = setConfigKey(
      path.join(d.home, 'leo.yaml'),
      ['client', 'hosts', `h${h}`],
      { url: `http://127.0.0.1:${port}` },
      d.home,
    );
    if (!written.ok) throw new Error(written.errors.join('; '));
  });
  await d.daemon.reloadConfig('bench hosts');
  const online = performance.now();
  for (;;) {
    const s = await hubState(d);
    if (s.hosts?.length === HOSTS && s.hosts.every((h) => h.status === 'online') && s.agents.length >= HOSTS * AGENTS)
      break;
    if (performance.now() - online > 30_000) throw new Error('the hosts did not come online within 30 s');
    await new Promise((r) => setTimeout(r, 100));
  }
  console.log(`${HOSTS} hosts × ${AGENTS} agents online on the hub in ${fmt(performance.now() - online, 0)} ms`);
  app = new AppClient({ port: d.daemon.port }, d.daemon.operatorToken, 'agent_activity');

  const rows: Row[] = [];
  for (const rate of RATES) rows.push(await step(d, 'loopback', rate, command));
  const mid = RATES.find((r) => r >= 500) ?? RATES[0]!;
  rows.push(await step(d, 'loopback + state reads', mid, command, true));
  await command({ faults: { delayMs: 20 } });
  rows.push(await step(d, '+20 ms each way', mid, command));
  await command({ faults: { delayMs: 0 } });
  // The last row: h0 stays hung until the end.
  await command({ faults: { mode: { kind: 'half-response', bytes: 12 } }, host: 0 });
  const hung = await step(d, 'h0 hung', mid, command);
  const others = Object.entries(hung.byHost)
    .filter(([h]) => h !== 'h0')
    .flatMap(([, xs]) => xs);
  rows.push({ ...hung, latencies: others, label: 'h0 hung (others)' });

  table(
    [
      'row',
      'events/s',
      'received',
      'hop p50 ms',
      'hop p99 ms',
      'loop p99 ms',
      'ELU',
      'state p99 ms',
      'RSS MB',
      'heap MB',
    ],
    rows.map((r) => [
      r.label,
      String(r.rate),
      String(r.latencies.length),
      fmt(quantile(r.latencies, 0.5), 1),
      fmt(quantile(r.latencies, 0.99), 1),
      fmt(r.loopP99, 1),
      fmt(r.elu, 2),
      fmt(r.stateP99, 1),
      fmt(r.rssMb, 0),
      fmt(r.heapMb, 0),
    ]),
  );
  const healthy = rows.find((r) => r.label === 'loopback' && r.rate === mid)!;
  console.log(
    `one host hung: the others' p99 ${fmt(quantile(others, 0.99), 1)} ms against ${fmt(quantile(healthy.latencies, 0.99), 1)} ms ` +
      `all healthy at ${mid} events/s (${fmt(quantile(others, 0.99) / quantile(healthy.latencies, 0.99), 2)}x)`,
  );
  const sustained = rows.filter((r) => r.label === 'loopback' && r.loopP99 <= GOAL_LOOP_P99_MS).map((r) => r.rate);
  console.log(
    `goals: one hop p99 ≤ ${GOAL_HOP_P99_MS} ms; the highest rate with the hub's loop p99 ≤ ${GOAL_LOOP_P99_MS} ms: ` +
      `${sustained.length ? Math.max(...sustained) : 'none'} events/s`,
  );
}

runGuarded(BUDGET_MS, main, cleanup, cleanupSync);
