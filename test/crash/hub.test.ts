// Exactly-once through a hub (issue 31, Done when 3): a client sends to agents of other machines through the hub's
// TCP listener, each send under its own client_id and retried under it until a 2xx, while the hub is SIGKILLed and
// restarted and the hub↔host links flap. The hosts are real daemons on the hosts bench (network namespaces, or
// loopback ports); each host is reached through a fault proxy of the test's, so a flap is a veth set down, a proxy
// turned into a blackhole, a proxy adding loss and delay, or every connection through it reset.
import assert from 'node:assert/strict';
import { EventEmitter, once } from 'node:events';
import { describe, it } from 'node:test';
import { HostBench } from '../helpers/hosts/bench.js';
import type { FaultProxy } from '../helpers/hosts/fault-proxy.js';
import type { HostDaemon } from '../helpers/hosts/host-daemon.js';
import { request } from '../helpers/http.js';
import { SseClient } from '../helpers/sse-client.js';
import { tempDir } from '../helpers/temp-home.js';
import { until } from '../helpers/wait.js';
import {
  amend,
  countMarkers,
  linesReadShowing,
  readThread,
  runSeeds,
  sinkReady,
  sinkTemplate,
  sleep,
  type Message,
  type Rng,
} from './kit.js';

/** Per seed, bounded for CI; the run is LEO_CRASH_HUB_SENDS=1000 LEO_CRASH_HUB_KILLS=20 (docs/RELIABILITY.md). */
const SENDS = Number(process.env.LEO_CRASH_HUB_SENDS) || 60;
const KILLS = Number(process.env.LEO_CRASH_HUB_KILLS) || 2;
const FLAPS = Number(process.env.LEO_CRASH_HUB_FLAPS) || 2;
/** One host by default; LEO_CRASH_HUB_HOSTS=2 adds a second. */
const HOSTS = ['box', 'cub'].slice(0, Number(process.env.LEO_CRASH_HUB_HOSTS) || 1);
const AGENTS = ['ann', 'bob'];
/** Sends the client has in flight at once, like an app's outbox flushing after a reconnect. */
const IN_FLIGHT = 4;
/** The client gives up on an attempt after this long without an answer, and retries. */
const ATTEMPT_MS = 2_000;
/** A send not acknowledged by then fails the seed (a fault that never ends). */
const SEND_DEADLINE_MS = 90_000;
const MARKER = /H\d+x\d+Z/g;
const markerOf = (text: string) => /H\d+x\d+Z/.exec(text)?.[0];

type FlapKind = 'link down' | 'blackhole' | 'loss and delay' | 'connections reset';
const FLAP_KINDS: readonly FlapKind[] = ['link down', 'blackhole', 'loss and delay', 'connections reset'];

interface Send {
  /** `name@host`. */
  to: string;
  clientId: string;
  marker: string;
}

/** Everything a seed does, drawn from its PRNG before anything runs: timing decides the rest. */
interface Plan {
  sends: Send[];
  /** Each kill once `after` sends are acknowledged: at once, or `settleMs` after the next attempt leaves. */
  kills: { after: number; midRequest: boolean; settleMs: number; downMs: number }[];
  flaps: { after: number; host: string; kind: FlapKind; holdMs: number }[];
}

/** `n` progress points spread over the run (sorted: each waits for the one before it). */
const points = (rng: Rng, n: number) => Array.from({ length: n }, () => rng.int(0, SENDS - 1)).sort((a, b) => a - b);

function planOf(seed: number, rng: Rng): Plan {
  const targets = HOSTS.flatMap((h) => AGENTS.map((a) => `${a}@${h}`));
  return {
    sends: Array.from({ length: SENDS }, (_, i) => ({
      to: rng.pick(targets),
      clientId: `hub-${seed}-${i}`,
      marker: `H${seed}x${i}Z`,
    })),
    kills: points(rng, KILLS).map((after) => ({
      after,
      midRequest: rng() < 0.5,
      settleMs: rng.int(0, 30),
      downMs: rng.int(0, 500),
    })),
    flaps: points(rng, FLAPS).map((after) => ({
      after,
      host: rng.pick(HOSTS),
      kind: rng.pick(FLAP_KINDS),
      holdMs: rng.int(300, 3_500),
    })),
  };
}

/** A link fault on `host` (through its fault proxy `proxy`), and what ends it. */
function flap(kind: FlapKind, host: HostDaemon, proxy: FaultProxy): () => void {
  switch (kind) {
    case 'link down':
      host.link.down();
      return () => host.link.up();
    case 'blackhole':
      proxy.set({ mode: { kind: 'blackhole' } });
      return () => proxy.set({ mode: { kind: 'forward' } });
    case 'loss and delay':
      proxy.set({ loss: 0.3, delayMs: 40 });
      return () => proxy.set({ loss: 0, delayMs: 0 });
    case 'connections reset':
      proxy.dropConnections();
      proxy.set({ mode: { kind: 'blackhole' } });
      return () => proxy.set({ mode: { kind: 'forward' } });
  }
}

describe('crash: exactly-once through a hub SIGKILLed while host links flap', () => {
  it('every send is stored on its host once and typed once; the hub shows the same thread', async (t) => {
    await runSeeds(t, 'hub', { ciSeeds: 1, parallel: 1, file: 'crash/hub' }, async (seed, rng) => {
      const plan = planOf(seed, rng);
      const bench = HostBench.open();
      let hub: HostDaemon | undefined;
      try {
        t.diagnostic(bench.network.note);
        const template = sinkTemplate(tempDir('leo-sink-'));
        const started = await Promise.all([bench.host('hub'), ...HOSTS.map((n) => bench.host(n, template))]);
        hub = started[0];
        const hosts = new Map(started.slice(1).map((h) => [h.name, h]));
        const proxies = new Map<string, FaultProxy>();
        for (const host of hosts.values()) {
          const proxy = await bench.proxy(host);
          proxies.set(host.name, proxy);
          await bench.pair(hub, host, { via: proxy });
        }
        await Promise.all(
          [...hosts.values()].flatMap((host) =>
            AGENTS.map(async (name) => {
              const r = await hub!.op('POST', '/api/v1/agents/spawn', { template: 'sink', name, host: host.name });
              assert.equal(r.status, 201, r.text);
              await sinkReady(host.home, name);
            }),
          ),
        );
        const run = await drive(plan, hub, hosts, proxies);
        if (run.odd.size > 0) t.diagnostic(`seed ${seed}: other 5xx answers: ${[...run.odd].join('; ')}`);
        for (const host of hosts.values()) for (const agent of AGENTS) await check(plan, run, hub, host, agent);
        for (const stream of run.streams) stream.close();
        return run.tally;
      } catch (err) {
        throw hub ? amend(err, '', `\n--- the hub's log (its last start) ---\n${hub.logTail(4_000)}`) : err;
      } finally {
        await bench.close();
      }
    });
  });
});

const newTally = (sends: number) => ({
  kills: 0,
  flaps: 0,
  sends,
  acknowledged: 0,
  'acknowledged as a repeat (200)': 0,
  retries: 0,
  '503 host_unreachable': 0,
  'other 5xx': 0,
  '429 queue_full': 0,
  'connection refused': 0,
  'connection reset': 0,
  'timed out': 0,
  'stored once': 0,
  'typed once': 0,
  'stored out of send order': 0,
  'on the hub stream': 0,
});

interface Run {
  tally: ReturnType<typeof newTally>;
  /** What the hub acknowledged, by client_id. */
  acked: Map<string, Message>;
  /** The hub's event stream, one per boot of the hub: what a dashboard of the hub was told. */
  streams: SseClient[];
  /** The 5xx answers other than host_unreachable, by status and code: retried, and named in the output. */
  odd: Set<string>;
}

/** The client's sends, each retried until acknowledged, while the hub is killed and the links flap as planned. */
async function drive(
  plan: Plan,
  hub: HostDaemon,
  hosts: Map<string, HostDaemon>,
  proxies: Map<string, FaultProxy>,
): Promise<Run> {
  const token = hub.operatorToken;
  const tally = newTally(plan.sends.length);
  const odd = new Set<string>();
  const acked = new Map<string, Message>();
  /** 'ack' after each acknowledgement, 'attempt' as each attempt leaves. */
  const progress = new EventEmitter();
  progress.setMaxListeners(0);
  let stopped = false;
  const ackedAtLeast = async (n: number) => {
    while (acked.size < n && !stopped) await once(progress, 'ack');
  };

  const streams: SseClient[] = [];
  const listen = async () => void streams.push(await SseClient.open(hub.socket, '/api/v1/events'));
  await listen();

  const attempt = async (s: Send): Promise<boolean> => {
    progress.emit('attempt');
    let r;
    try {
      r = await request(hub.tcp, 'POST', `/api/v1/chat/${s.to}/messages`, {
        token,
        body: { text: `${s.marker} via the hub`, client_id: s.clientId },
        timeoutMs: ATTEMPT_MS,
      });
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      tally[code === 'ECONNREFUSED' ? 'connection refused' : code === 'ETIMEDOUT' ? 'timed out' : 'connection reset']++;
      return false;
    }
    if (r.status === 200 || r.status === 201) {
      const m = r.json.data as Message;
      assert.equal(m.client_id, s.clientId, `the hub answered ${s.clientId} with its own message`);
      assert.equal(m.agent, s.to);
      if (r.status === 200) tally['acknowledged as a repeat (200)']++;
      acked.set(s.clientId, m);
      return true;
    }
    if (r.status === 503 && r.json?.code === 'host_unreachable') tally['503 host_unreachable']++;
    else if (r.status === 429) tally['429 queue_full']++;
    else if (r.status >= 500) {
      tally['other 5xx']++;
      odd.add(`${r.status} ${r.json?.code ?? r.text.slice(0, 80)}`);
    } else assert.fail(`${s.clientId}: the hub answered ${r.status}: ${r.text}`);
    return false;
  };

  let next = 0;
  const sending = async () => {
    while (next < plan.sends.length && !stopped) {
      const s = plan.sends[next++]!;
      const deadline = Date.now() + SEND_DEADLINE_MS;
      while (!(await attempt(s))) {
        if (stopped) return;
        assert.ok(Date.now() < deadline, `${s.clientId} not acknowledged in ${SEND_DEADLINE_MS} ms`);
        tally.retries++;
        await sleep(100);
      }
      progress.emit('ack');
    }
  };

  const killing = async () => {
    for (const k of plan.kills) {
      await ackedAtLeast(k.after);
      if (stopped) return;
      // Mid-request: while an attempt is on its way through the hub to the host (or the answer on its way back).
      if (k.midRequest && acked.size < plan.sends.length) {
        await once(progress, 'attempt');
        await sleep(k.settleMs);
      }
      await hub.kill();
      tally.kills++;
      await sleep(k.downMs);
      await hub.start();
      await listen();
    }
  };

  const flapping = async () => {
    for (const f of plan.flaps) {
      await ackedAtLeast(f.after);
      if (stopped) return;
      const end = flap(f.kind, hosts.get(f.host)!, proxies.get(f.host)!);
      tally.flaps++;
      await sleep(f.holdMs);
      end();
    }
  };

  // A failure stops the others where they wait; a kill under way still restarts the hub (the checks read through it).
  const stop = () => {
    stopped = true;
    progress.emit('ack');
    progress.emit('attempt');
  };
  const outcomes = await Promise.allSettled(
    [
      // The last send acknowledged: no attempt is coming for a kill waiting for one.
      Promise.all(Array.from({ length: IN_FLIGHT }, sending)).then(() => void progress.emit('attempt')),
      killing(),
      flapping(),
    ].map((p) => p.catch((err: unknown) => (stop(), Promise.reject(err)))),
  );
  stop();
  for (const o of outcomes) if (o.status === 'rejected') throw o.reason;
  tally.acknowledged = acked.size;
  assert.equal(acked.size, plan.sends.length, 'every send acknowledged in the end');
  return { tally, acked, streams, odd };
}

/** What `agent` of `host` stored and read, against what the hub acknowledged, shows and relayed. */
async function check(plan: Plan, run: Run, hub: HostDaemon, host: HostDaemon, agent: string): Promise<void> {
  const { tally, acked } = run;
  const hostName = host.name;
  const address = `${agent}@${hostName}`;
  const mine = plan.sends.filter((s) => s.to === address);
  // The host's own thread over its socket: each inbound message delivered (nothing pending, nothing failed).
  const thread = await until(
    `${address}'s messages to be typed`,
    async () => {
      const msgs = await readThread((p) => host.op('GET', p), agent);
      return msgs.every((m) => m.direction !== 'in' || m.state !== 'pending') && msgs;
    },
    30_000 + 500 * mine.length,
    250,
  );
  const inbound = thread.filter((m) => m.direction === 'in');
  for (const m of inbound) assert.equal(m.state, 'delivered', `${m.client_id} delivered: ${m.text}`);
  const byClientId = new Map<string, Message[]>();
  for (const m of inbound) byClientId.set(m.client_id ?? '', [...(byClientId.get(m.client_id ?? '') ?? []), m]);
  for (const s of mine) {
    const stored = byClientId.get(s.clientId) ?? [];
    assert.equal(stored.length, 1, `${s.clientId} to ${address} stored on ${hostName} exactly once`);
    assert.equal(stored[0]!.id, acked.get(s.clientId)!.id, `${s.clientId}: the acknowledged message`);
    assert.equal(markerOf(stored[0]!.text), s.marker);
  }
  assert.equal(inbound.length, mine.length, `${address}: nothing stored that was not sent`);
  tally['stored once'] += mine.length;

  const lines = await linesReadShowing(
    host.home,
    agent,
    mine.map((s) => s.marker),
  );
  const read = countMarkers(lines, MARKER);
  for (const s of mine) assert.equal(read.get(s.marker), 1, `${s.marker} typed into ${address} exactly once`);
  assert.equal(read.size, mine.length, `${address} read only its own messages`);
  tally['typed once'] += mine.length;
  // The host types an agent's messages in the order it stored them. That is the client's order only as far as
  // the client decided it: with several sends in flight, and retries, a later send can be stored first.
  assert.deepEqual(
    lines.flatMap((l) => l.match(MARKER) ?? []),
    inbound.map((m) => markerOf(m.text)),
    `${address} read its messages in the order its host stored them`,
  );
  const sentAt = new Map(plan.sends.map((s, i) => [s.marker, i]));
  let latest = -1;
  for (const m of inbound) {
    const i = sentAt.get(markerOf(m.text)!)!;
    if (i < latest) tally['stored out of send order']++;
    latest = Math.max(latest, i);
  }

  // The hub's view, as its client reads it: the same thread through the proxy, under the agent's address.
  const viaHub = await readThread((p) => request(hub.tcp, 'GET', p, { token: hub.operatorToken }), address);
  assert.deepEqual(
    viaHub.map((m) => [m.id, m.agent, m.state, m.client_id ?? null]),
    thread.map((m) => [m.id, address, m.state, m.client_id ?? null]),
    `the hub shows ${address}'s thread as ${hostName} stores it`,
  );

  // The hub's stream: each boot of the hub re-publishes what the host published (from the cursor it saved), so
  // the same message may come again after a hub restart, but never twice in one boot, and only as stored.
  const ids = new Set(inbound.map((m) => m.id));
  const seen = new Set<string>();
  for (const stream of run.streams) {
    const thisBoot = new Set<string>();
    for (const e of stream.events) {
      if (e.event !== 'chat.message' || e.data.message.agent !== address) continue;
      assert.equal(e.data.host, hostName);
      assert.ok(ids.has(e.data.message.id) || e.data.message.direction !== 'in', 'the hub relays stored ones');
      assert.ok(!thisBoot.has(e.data.message.id), `${e.data.message.id} relayed once per boot of the hub`);
      thisBoot.add(e.data.message.id);
      seen.add(e.data.message.id);
    }
  }
  tally['on the hub stream'] += [...ids].filter((id) => seen.has(id)).length;
}
