/**
 * One hop between real machines (issue 31, Done when 4 and 5): host event → hub → app, with the test bench's real
 * daemons each in a network namespace of its own joined by veth (test/helpers/hosts/; distinct loopback ports where
 * namespaces are unavailable, which the output says).
 *
 * The event is an agent's post in its own thread on a host (POST /api/agent/den/chat/post over the host's socket, as
 * its chat tool does), whose text is its send time; the hub relays the chat.message, and the app, an SSE reader of
 * the hub's /api/v1/events on a worker thread (app-client.ts), times it from that send: the host storing it, its
 * stream to the hub, the hub's fan-in and its stream to the app (the host's answer to each post is timed too, so a
 * slow host shows apart from a slow hop). Rows, each `--posts` posts at `--rate` a second:
 *   - box followed twice at once, over the plain veth link and through a fault proxy adding 20 ms each way: every
 *     post timed on both paths;
 *   - then box followed through the proxy only, and attic over plain veth, both posting: attic's hop with box
 *     healthy; with box hung mid-response (the hub's open stream from it goes silent, and once the hub gives it up as
 *     stale, every answer on a new connection stops after a few bytes); and with box's link a blackhole (its
 *     connections dropped, the new ones accepted and nothing crossing).
 *
 *   npx tsc -p tsconfig.json && node dist/benchmarks/hosts/hop.js [--posts 300] [--rate 20]
 *
 * Namespaces need root. Asserts nothing; the daemons, their homes and the namespaces are removed on exit.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { StateSnapshot } from '../../src/wire/fleet.js';
import type { ProxyMode } from '../../test/helpers/hosts/fault-rules.js';
import { HostBench } from '../../test/helpers/hosts/bench.js';
import type { FaultProxy } from '../../test/helpers/hosts/fault-proxy.js';
import type { HostDaemon } from '../../test/helpers/hosts/host-daemon.js';
import { int, options } from '../lib/options.js';
import { fmt, machineLine, quantile, runGuarded, table } from '../lib/report.js';
import { AppClient, sentText, type Latencies } from './app-client.js';
import { following, hubBoxAttic } from './hub-and-hosts.js';

const BUDGET_MS = 300_000;
const GOAL_HOP_P99_MS = 250;
const DELAY_MS = 20;
/** Of each answer on a connection opened after the hang, this many bytes cross: a status line cut short. */
const HALF_RESPONSE_BYTES = 12;
/** How long the last posts may take to arrive before a row is cut: a path that lost some shows in its count. */
const DRAIN_MS = 5_000;
/** The warm-up waits up to this long for its last post, so that none of its posts lands in the first row. */
const WARM_UP_DRAIN_MS = 30_000;
const WARM_UP_POSTS = 20;
const CAT = 'templates:\n  cat: { harness: shell, command: "exec cat" }\n';

const o = options({ posts: int(300), rate: int(20) });

let bench: HostBench | undefined;
let app: AppClient | undefined;

async function cleanup(): Promise<void> {
  await app?.close();
  await bench?.close();
}

/**
 * Posts `posts` times on each of `on` at `o.rate` a second, then collects what the app saw until `awaited` (hub names
 * of hosts) each have every post or `drainMs` passes. `answers`: how long each host took to answer its posts (its own
 * part of the hop).
 */
async function posting(
  on: HostDaemon[],
  awaited: string[],
  posts = o.posts,
  drainMs = DRAIN_MS,
): Promise<{ hops: Latencies; answers: Latencies }> {
  await app!.take();
  const answers: Latencies = {};
  const sends: Promise<boolean>[] = [];
  const start = performance.now();
  for (let i = 0; i < posts; i++) {
    await sleep(Math.max(0, start + (i * 1000) / o.rate - performance.now()));
    for (const host of on) {
      const sent = performance.now();
      sends.push(
        host.op('POST', '/api/agent/den/chat/post', { text: sentText() }).then(
          (r) => {
            (answers[host.name] ??= []).push(performance.now() - sent);
            return r.status === 200;
          },
          () => false,
        ),
      );
    }
  }
  const failed = (await Promise.all(sends)).filter((ok) => !ok).length;
  if (failed > 0) throw new Error(`${failed} of ${sends.length} posts were refused by their host`);
  const byHost: Latencies = {};
  const deadline = Date.now() + drainMs;
  for (;;) {
    for (const [h, xs] of Object.entries(await app!.take())) (byHost[h] ??= []).push(...xs);
    if (awaited.every((h) => (byHost[h]?.length ?? 0) >= posts) || Date.now() > deadline) break;
    await sleep(100);
  }
  return { hops: byHost, answers };
}

async function statusOf(hub: HostDaemon, name: string): Promise<string> {
  const h = (await hub.get('/api/v1/state', StateSnapshot)).hosts?.find((x) => x.name === name);
  return h ? h.status : 'not listed';
}

interface Row {
  label: string;
  hops: number[];
  /** The posting host's answers to the posts. */
  answers: number[];
  note: string;
}

async function main(): Promise<void> {
  console.log(machineLine());
  bench = HostBench.open();
  const { link, hub, box, attic } = await hubBoxAttic(bench, CAT);
  for (const host of [box, attic]) {
    const spawned = await host.op('POST', '/api/v1/agents/spawn', { template: 'cat', name: 'den' });
    if (spawned.status !== 201) throw new Error(`spawn on ${host.name}: ${spawned.status} ${spawned.text}`);
  }
  const proxy: FaultProxy = await bench.proxy(box);
  proxy.set({ delayMs: DELAY_MS });
  await bench.pair(hub, box);
  await bench.pair(hub, box, { as: 'box-slow', via: proxy });
  await bench.pair(hub, attic);
  await following(hub, ['den@box', 'den@box-slow', 'den@attic']);
  app = new AppClient(hub.tcp, hub.operatorToken, 'chat.message');
  // The reader's stream open, and every path warm.
  await sleep(1_000);
  const warm = await posting([box, attic], ['box', 'box-slow', 'attic'], WARM_UP_POSTS, WARM_UP_DRAIN_MS);
  const most = (l: Latencies) => Object.entries(l).map(([h, xs]) => `${h} ${fmt(quantile(xs, 1), 0)}`);
  console.log(
    `warm-up: ${WARM_UP_POSTS} posts on box and attic; the longest hop ${most(warm.hops).join(', ')} ms; ` +
      `the longest post answer ${most(warm.answers).join(', ')} ms`,
  );

  const rows: Row[] = [];
  const both = await posting([box], ['box', 'box-slow']);
  rows.push({ label: `box over ${link}`, hops: both.hops.box ?? [], answers: both.answers.box ?? [], note: '' });
  rows.push({
    label: `box over ${link} + proxy ${DELAY_MS} ms each way`,
    hops: both.hops['box-slow'] ?? [],
    answers: both.answers.box ?? [],
    note: 'the same posts',
  });

  // From here box is followed through the proxy alone, so a fault there hangs the whole host for the hub.
  const removed = await hub.op('DELETE', '/api/v1/hosts/box');
  if (removed.status !== 200) throw new Error(`host remove box: ${removed.status} ${removed.text}`);
  proxy.set({ delayMs: 0 });
  const healthy = await posting([box, attic], ['attic', 'box-slow']);
  rows.push({
    label: 'attic, box healthy',
    hops: healthy.hops.attic ?? [],
    answers: healthy.answers.attic ?? [],
    note: 'both posting',
  });
  const faults: [string, ProxyMode, drop: boolean][] = [
    ['attic, box hung mid-response', { kind: 'half-response', bytes: HALF_RESPONSE_BYTES }, false],
    ['attic, box blackholed', { kind: 'blackhole' }, true],
  ];
  for (const [label, mode, drop] of faults) {
    proxy.set({ mode });
    if (drop) proxy.dropConnections();
    const run = await posting([box, attic], ['attic']);
    const lost = o.posts - (run.hops['box-slow']?.length ?? 0);
    rows.push({
      label,
      hops: run.hops.attic ?? [],
      answers: run.answers.attic ?? [],
      note: `box: ${lost} of ${o.posts} held, ${await statusOf(hub, 'box-slow')} at the end`,
    });
  }

  console.log(`\n${o.posts} posts per host per row at ${o.rate}/s; hop = post sent on the host → seen by the app\n`);
  table(
    ['row', 'received', 'hop p50 ms', 'hop p90 ms', 'hop p99 ms', 'max ms', 'post answer p99 / max ms', ''],
    rows.map((r) => [
      r.label,
      `${r.hops.length}/${o.posts}`,
      fmt(quantile(r.hops, 0.5), 1),
      fmt(quantile(r.hops, 0.9), 1),
      fmt(quantile(r.hops, 0.99), 1),
      fmt(quantile(r.hops, 1), 1),
      `${fmt(quantile(r.answers, 0.99), 1)} / ${fmt(quantile(r.answers, 1), 1)}`,
      r.note,
    ]),
  );
  const p99 = (label: string) => quantile(rows.find((r) => r.label === label)!.hops, 0.99);
  const base = p99('attic, box healthy');
  console.log(
    `\ngoal: one hop p99 ≤ ${GOAL_HOP_P99_MS} ms: ${fmt(quantile(rows[0]!.hops, 0.99), 1)} ms ` +
      `over ${link}, ${fmt(quantile(rows[1]!.hops, 0.99), 1)} ms with ${DELAY_MS} ms added each way`,
  );
  for (const [label] of faults)
    console.log(
      `${label}: attic's p99 ${fmt(p99(label), 1)} ms against ${fmt(base, 1)} ms (${fmt(p99(label) / base, 2)}x)`,
    );
}

runGuarded(BUDGET_MS, main, cleanup, () => bench?.network.close());
