/**
 * A host's link cut and restored (issue 31, Done when 4: "stale or offline in the app within 15 s … when the link
 * returns the fleet and threads resync with nothing missing or doubled"), on the test bench's real daemons: a hub and
 * box, each in a network namespace of its own joined by veth (test/helpers/hosts/), and the app's reader of the hub's
 * /api/v1/events on a worker thread (app-client.ts).
 *
 * Each of `--cuts` rounds sets box's veth down and at once, on box itself (its unix socket, which no link fault
 * cuts), posts `--posts` messages in agent den's thread and stops or starts agent aux; it then times, from the cut,
 * the host_status that says box is stale or offline as it reaches the reader. `--hold` seconds later (0: at once) it
 * sets the link up and times the host_status online: a longer hold lets the hub's follower back off (1 s doubling,
 * each attempt given 10 s), which the time back online shows. Then what the app can hold is checked against box,
 * each id counted: the den@box chat.message ids the reader got in the round, and the page of the hub's thread of
 * den@box after the last message before the cut (what an app has to fetch again to have them); the hub's
 * /api/v1/state agents of box against box's own (name, status, started_at); and `--live` posts after the link is
 * back, which must each reach the reader once.
 *
 *   npx tsc -p tsconfig.json && node dist/benchmarks/hosts/link-cut.js [--cuts 5] [--posts 20] [--live 5] [--hold 0]
 *
 * Namespaces need root; on loopback a link down is a blackhole proxy in front of box (the output says which). Asserts
 * nothing; the daemons, their homes and the namespaces are removed on exit.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { PEER_HEARTBEAT_MS } from '../../src/events/sse-hub.js';
import { StateSnapshot, type Agent } from '../../src/wire/fleet.js';
import { MessagePage } from '../../src/wire/message.js';
import { HostBench } from '../../test/helpers/hosts/bench.js';
import type { HostDaemon } from '../../test/helpers/hosts/host-daemon.js';
import { request } from '../../test/helpers/http.js';
import { int, options } from '../lib/options.js';
import { fmt, machineLine, quantile, runGuarded, table } from '../lib/report.js';
import { AppClient, wallNow, type AppLog } from './app-client.js';
import { following } from './hub-and-hosts.js';

const BUDGET_MS = 600_000;
/** The issue's bound on a cut link showing in the app. */
const GOAL_DOWN_S = 15;
/** How long a round waits for a status before it gives up on the round (the run then says so). */
const STATUS_WAIT_MS = 120_000;
/** How long the hub's view of box may take to agree with box once box is online again. */
const AGREE_MS = 5_000;
const CAT = 'templates:\n  cat: { harness: shell, command: "exec cat" }\n';

const o = options({ cuts: int(5), posts: int(20), live: int(5), hold: int(0, 0) });

let bench: HostBench | undefined;
let app: AppClient | undefined;

async function cleanup(): Promise<void> {
  await app?.close();
  await bench?.close();
}

/** Everything the reader logs from now on, gathered across calls to `log()`. */
class Seen {
  readonly hosts: AppLog['hosts'] = [];
  readonly messages: Record<string, string[]> = {};

  async pull(): Promise<void> {
    const l = await app!.log();
    this.hosts.push(...l.hosts);
    for (const [agent, ids] of Object.entries(l.messages)) (this.messages[agent] ??= []).push(...ids);
  }

  /** The arrival of the first host_status for `host` with one of `statuses`, waiting for it; null past the wait. */
  async status(host: string, statuses: string[], from: number): Promise<number | null> {
    const deadline = Date.now() + STATUS_WAIT_MS;
    for (;;) {
      await this.pull();
      const hit = this.hosts.find((e) => e.host === host && e.at >= from && statuses.includes(e.status ?? ''));
      if (hit) return hit.at;
      if (Date.now() > deadline) return null;
      await sleep(50);
    }
  }
}

async function post(host: HostDaemon, agent: string, text: string): Promise<string> {
  const r = await host.op('POST', `/api/agent/${agent}/chat/post`, { text });
  if (r.status !== 200) throw new Error(`post on ${host.name}: ${r.status} ${r.text}`);
  return (r.json.data as { message_id: string }).message_id;
}

/** How many times each of `ids` is in `got`: "n/N once" with what was missing or doubled. */
function once(ids: string[], got: string[]): { text: string; exact: boolean } {
  const counts = new Map<string, number>();
  for (const id of got) counts.set(id, (counts.get(id) ?? 0) + 1);
  const missing = ids.filter((id) => !counts.has(id)).length;
  const doubled = ids.filter((id) => (counts.get(id) ?? 0) > 1).length;
  const exact = missing === 0 && doubled === 0;
  const text = `${ids.length - missing}/${ids.length}${missing ? ` (${missing} missing)` : ''}${doubled ? ` (${doubled} doubled)` : ''}`;
  return { text, exact };
}

/** An agent as both sides must agree on it: its name on its own host, its status and when it started. */
const key = (a: Agent, host?: string) => {
  const name = host ? a.name.slice(0, -(host.length + 1)) : a.name;
  return `${name} ${a.status} ${a.started_at ?? '-'}`;
};

async function fleetsAgree(hub: HostDaemon, box: HostDaemon): Promise<string | null> {
  const deadline = Date.now() + AGREE_MS;
  let diff = '';
  for (;;) {
    const [h, b] = await Promise.all([
      hub.get('/api/v1/state', StateSnapshot),
      box.get('/api/v1/state', StateSnapshot),
    ]);
    const onHub = h.agents
      .filter((a) => a.host === box.name)
      .map((a) => key(a, box.name))
      .sort();
    const own = b.agents.map((a) => key(a)).sort();
    if (onHub.join('\n') === own.join('\n')) return null;
    diff = `hub: ${onHub.join(', ')}; box: ${own.join(', ')}`;
    if (Date.now() > deadline) return diff;
    await sleep(100);
  }
}

interface Round {
  downS: number | null;
  downAs: string;
  upS: number | null;
  events: string;
  thread: string;
  inOrder: boolean;
  live: string;
  fleet: string;
}

async function main(): Promise<void> {
  console.log(machineLine());
  bench = HostBench.open();
  console.log(`network: ${bench.network.note}`);
  const hub = await bench.host('hub');
  const box = await bench.host('box', CAT);
  for (const name of ['den', 'aux']) {
    const spawned = await box.op('POST', '/api/v1/agents/spawn', { template: 'cat', name });
    if (spawned.status !== 201) throw new Error(`spawn on box: ${spawned.status} ${spawned.text}`);
  }
  await bench.pair(hub, box);
  await following(hub, ['den@box', 'aux@box']);
  app = new AppClient(hub.tcp, hub.operatorToken, 'chat.message');
  const seen = new Seen();
  // The reader's stream open (a post before it opened is never seen: posted again until one is), the path warm.
  const warmBy = Date.now() + 30_000;
  for (;;) {
    const warm = await post(box, 'den', 'warm-up');
    await sleep(1_000);
    await seen.pull();
    if (seen.messages['den@box']?.includes(warm)) break;
    if (Date.now() > warmBy) throw new Error(`no warm-up post reached the app within 30 s\n${hub.logTail()}`);
  }
  console.error('warm: the reader sees den@box');

  const rounds: Round[] = [];
  for (let i = 0; i < o.cuts; i++) {
    const before = await post(box, 'den', `round ${i}: before the cut`);
    // The cut falls anywhere between two heartbeats of box's stream to the hub, as a real one would.
    await sleep(500 + Math.random() * PEER_HEARTBEAT_MS);
    await seen.pull();
    const eventsFrom = seen.messages['den@box']?.length ?? 0;

    const down = wallNow();
    box.link.down();
    const cut: string[] = [];
    for (let n = 0; n < o.posts; n++) cut.push(await post(box, 'den', `round ${i}: cut ${n}`));
    const action = i % 2 === 0 ? 'stop' : 'start';
    const acted = await box.op('POST', `/api/v1/agents/aux/${action}`);
    if (acted.status !== 200) throw new Error(`aux ${action} on box: ${acted.status} ${acted.text}`);
    const downAt = await seen.status('box', ['stale', 'offline'], down);
    const downAs = downAt === null ? '-' : seen.hosts.find((e) => e.at === downAt)!.status!;

    await sleep(o.hold * 1000);
    const up = wallNow();
    box.link.up();
    const upAt = await seen.status('box', ['online'], up);

    const page = await request(hub.tcp, 'GET', `/api/v1/chat/den@box/messages?after=${before}&limit=500`, {
      token: hub.operatorToken,
    });
    if (page.status !== 200) throw new Error(`the hub's thread of den@box: ${page.status} ${page.text}`);
    const fetched = MessagePage.parse(page.json.data).messages.map((m) => m.id);
    const fleet = await fleetsAgree(hub, box);

    const live: string[] = [];
    for (let n = 0; n < o.live; n++) live.push(await post(box, 'den', `round ${i}: live ${n}`));
    const liveBy = Date.now() + 5_000;
    for (;;) {
      await seen.pull();
      const got = seen.messages['den@box'] ?? [];
      if (live.every((id) => got.includes(id)) || Date.now() > liveBy) break;
      await sleep(100);
    }
    // Anything late would show as doubled or out of place below.
    await sleep(500);
    await seen.pull();
    const events = (seen.messages['den@box'] ?? []).slice(eventsFrom);

    rounds.push({
      downS: downAt === null ? null : (downAt - down) / 1000,
      downAs,
      upS: upAt === null ? null : (upAt - up) / 1000,
      events: once(cut, events).text,
      thread: once(cut, fetched).text,
      inOrder: fetched.filter((id) => cut.includes(id)).join() === cut.join(),
      live: once(live, events).text,
      fleet: fleet === null ? `agrees (aux ${action === 'stop' ? 'stopped' : 'started'})` : fleet,
    });
    console.error(`round ${i + 1}/${o.cuts} done`);
  }

  console.log(
    `\n${o.cuts} cuts of box's link, each set up ${o.hold} s after the app saw it; in each, ${o.posts} posts on box ` +
      `and aux stopped or started while it is down\n`,
  );
  table(
    [
      'round',
      'down → app s',
      'as',
      'up → online s',
      'cut posts as events',
      'cut posts in hub thread',
      'in order',
      'live after',
      'hub fleet vs box',
    ],
    rounds.map((r, i) => [
      String(i + 1),
      r.downS === null ? 'not seen' : fmt(r.downS, 2),
      r.downAs,
      r.upS === null ? 'not seen' : fmt(r.upS, 2),
      r.events,
      r.thread,
      r.inOrder ? 'yes' : 'no',
      r.live,
      r.fleet,
    ]),
  );
  const downs = rounds.flatMap((r) => (r.downS === null ? [] : [r.downS]));
  const ups = rounds.flatMap((r) => (r.upS === null ? [] : [r.upS]));
  const spread = (xs: number[]) =>
    `min ${fmt(quantile(xs, 0), 2)}, median ${fmt(quantile(xs, 0.5), 2)}, max ${fmt(quantile(xs, 1), 2)} s`;
  console.log(`\nlink down → stale/offline in the app: ${spread(downs)} (goal ≤ ${GOAL_DOWN_S} s)`);
  console.log(`link up → online in the app: ${spread(ups)}`);
  console.log(
    'a post made while the link is down reaches the app by no event (a host keeps no event history: the hub ' +
      "refetches box's state and publishes host_state); on that host_state Leo Web fetches the thread list and an " +
      "open thread of box's again, which is the hub thread column",
  );
}

runGuarded(BUDGET_MS, main, cleanup, () => bench?.network.close());
