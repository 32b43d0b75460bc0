// The hub's follower of one host (issue 31, Fan-in), against a real daemon as the host and, for the faults, a small
// HTTP server of the test's own: a host that goes silent, one that answers half a response and hangs, one that
// restarts or skips seqs, one that drops every connection. The follower's timers run on a ManualClock.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { ManualClock } from '../../../src/core/clock.js';
import { HostFollower, type FollowedEvent } from '../../../src/hosts/follower/host-follower.js';
import { fetchHostClient } from '../../../src/hosts/host-client.js';
import type { StateSnapshot } from '../../../src/wire/fleet.js';
import { HostInvite, PROTOCOL, type HostStatus } from '../../../src/wire/host.js';
import { startTestDaemon, type TestDaemon } from '../../helpers/daemon.js';
import { publishRaw } from '../../helpers/raw-publish.js';
import { until } from '../../helpers/wait.js';

const HEARTBEAT_MS = 20_000;
const ANSWER_MS = 10_000;

/** A follower of `url` on its own ManualClock, and everything it told its subscriber. */
function follow(
  url: string,
  token: string,
  from?: { cursor: { bootId: string; seq: number }; snapshot: StateSnapshot },
) {
  const clock = new ManualClock(Date.now());
  const events: FollowedEvent[] = [];
  const snapshots: StateSnapshot[] = [];
  const statuses: HostStatus[] = [];
  const follower = new HostFollower({
    client: fetchHostClient(url),
    token,
    clock,
    heartbeatMs: HEARTBEAT_MS,
    answerTimeoutMs: ANSWER_MS,
    subscriber: {
      event: (e) => events.push(e),
      snapshot: (s) => snapshots.push(s),
      status: (s) => statuses.push(s),
    },
    ...(from ? { from } : {}),
  });
  follower.start();
  return { follower, clock, events, snapshots, statuses };
}

const snapshotAt = (seq: number): StateSnapshot => ({
  version: 1,
  server_time: new Date().toISOString(),
  seq,
  leo_version: 'test',
  agents: [],
  tasks: [],
  recent_runs: [],
  recent_messages: [],
});
const frame = (type: string, data: unknown) => `event: ${type}\ndata: ${JSON.stringify(data)}\n\n`;

/** A host of the test's own: `onEvents` answers each /api/v1/events; /api/v1/state answers a snapshot at `stateSeq`. */
async function fakeHost(onEvents: (res: http.ServerResponse, n: number) => void) {
  const host = {
    connections: 0,
    stateFetches: 0,
    stateSeq: 0,
    protocol: { ...PROTOCOL } as { major: number; minor: number },
    open: [] as http.ServerResponse[],
    url: '',
    close: () => {},
  };
  const server = http.createServer((req, res) => {
    if (req.url === '/api/v1/host') {
      res.writeHead(200, { 'content-type': 'application/json' });
      const info = { host_id: 'fake', name: 'fake', version: 'test', protocol: host.protocol, features: [] };
      return res.end(JSON.stringify({ ok: true, data: info }));
    }
    if (req.url === '/api/v1/state') {
      host.stateFetches++;
      res.writeHead(200, { 'content-type': 'application/json' });
      return res.end(JSON.stringify({ ok: true, data: snapshotAt(host.stateSeq) }));
    }
    host.connections++;
    host.open.push(res);
    onEvents(res, host.connections);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  host.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  host.close = () => {
    server.closeAllConnections();
    server.close();
  };
  return host;
}
const openStream = (res: http.ServerResponse, hello: { seq: number; boot_id: string }) => {
  res.writeHead(200, { 'content-type': 'text/event-stream' });
  res.write(frame('hello', { ...hello, at: new Date().toISOString(), features: [] }));
};

describe('the hub follows a host', () => {
  let host: TestDaemon;
  let url: string;
  let token: string;
  const cleanups: (() => void)[] = [];

  before(async () => {
    host = await startTestDaemon();
    url = `http://127.0.0.1:${host.daemon.port}`;
    const invite = await host.op('POST', '/api/v1/host/invites', { hub: 'hub' });
    assert.equal(invite.status, 201, invite.text);
    const code = HostInvite.parse(invite.json.data).link.split('#join=')[1]!;
    token = (await fetchHostClient(url).join(code, 'hub')).token;
  });
  after(async () => {
    for (const c of cleanups) c();
    await host.stop();
  });

  it('reads a real host: one snapshot at start, then every event in seq order, and resumes from its cursor', async () => {
    const f = follow(url, token);
    cleanups.push(() => f.follower.stop());
    await until('online', () => f.follower.status === 'online', 10_000);
    assert.deepEqual(f.statuses, ['online']);
    assert.equal(f.snapshots.length, 1);
    const start = f.follower.position!.seq;
    for (let n = 1; n <= 3; n++) publishRaw(host.daemon.bus, 'agent_activity', { n });
    await until('three events', () => f.events.length === 3, 10_000);
    assert.deepEqual(
      f.events.map((e) => e.seq),
      [start + 1, start + 2, start + 3],
    );
    assert.equal(f.snapshots.length, 1, 'no gap, no refetch');
    f.follower.stop();

    // The hub restarts holding the cursor and snapshot: nothing was published meanwhile, so nothing is refetched.
    const held = { cursor: f.follower.position!, snapshot: f.follower.snapshot! };
    const again = follow(url, token, held);
    cleanups.push(() => again.follower.stop());
    await until('online again', () => again.follower.status === 'online', 10_000);
    assert.equal(again.snapshots.length, 0);
    again.follower.stop();

    // Events published while no one followed are gone from the stream: the hello shows it, and the snapshot is refetched.
    publishRaw(host.daemon.bus, 'agent_activity', { missed: true });
    const late = follow(url, token, held);
    cleanups.push(() => late.follower.stop());
    await until('a refetch', () => late.snapshots.length === 1, 10_000);
    assert.equal(late.follower.position!.seq, start + 4);
    late.follower.stop();
  });

  it('a host silent for two heartbeat intervals is stale, and is followed again from its next hello', async () => {
    const fake = await fakeHost((res) => openStream(res, { seq: 5, boot_id: 'b1' }));
    cleanups.push(fake.close);
    const f = follow(fake.url, 'peer');
    cleanups.push(() => f.follower.stop());
    await until('online', () => f.follower.status === 'online', 10_000);
    f.clock.advance(30_000);
    fake.open[0]!.write(': heartbeat\n\n');
    await until('the heartbeat read', () => f.follower.lastSeen === f.clock.now(), 10_000);
    f.clock.advance(2 * HEARTBEAT_MS - 1);
    assert.equal(f.follower.status, 'online', 'the heartbeat counts');
    f.clock.advance(1);
    assert.equal(f.follower.status, 'stale');
    await until('a reconnect', () => (f.clock.advance(0), fake.connections === 2), 10_000);
    await until('online again', () => f.follower.status === 'online', 10_000);
    assert.deepEqual(f.statuses, ['online', 'stale', 'online']);
    assert.equal(fake.stateFetches, 1, 'same boot and seq: the snapshot held is still good');
  });

  it('a seq gap or a new boot_id refetches the snapshot once', async () => {
    const fake = await fakeHost((res, n) => openStream(res, { seq: 5, boot_id: `boot${n}` }));
    cleanups.push(fake.close);
    const f = follow(fake.url, 'peer');
    cleanups.push(() => f.follower.stop());
    await until('online', () => f.follower.status === 'online', 10_000);
    const stream = fake.open[0]!;
    stream.write(frame('agent_activity', { seq: 6, at: 'x' }));
    stream.write(frame('agent_activity', { seq: 9, at: 'x' }));
    await until('two events', () => f.events.length === 2, 10_000);
    assert.equal(fake.stateFetches, 2, 'one at start, one for the gap');
    stream.end();
    await until('offline', () => f.follower.status === 'offline', 10_000);
    f.clock.advance(1_000);
    await until('a new boot refetched', () => fake.stateFetches === 3, 10_000);
    assert.deepEqual(f.follower.position, { bootId: 'boot2', seq: 5 });
    assert.equal(f.follower.status, 'online');
  });

  it('a host answering half a response and hanging goes offline, without holding up another host', async () => {
    const fake = await fakeHost((res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('event: hello\ndata: {"seq":');
    });
    cleanups.push(fake.close);
    const hung = follow(fake.url, 'peer');
    cleanups.push(() => hung.follower.stop());
    const live = follow(url, token);
    cleanups.push(() => live.follower.stop());
    await until('the hung host connected', () => fake.connections === 1, 10_000);
    await until('the real host online', () => live.follower.status === 'online', 10_000);
    publishRaw(host.daemon.bus, 'agent_activity', { while: 'hung' });
    await until('the real host’s event', () => live.events.length === 1, 10_000);
    assert.equal(hung.follower.status, 'offline', 'never online');
    assert.deepEqual(hung.statuses, []);
    hung.clock.advance(ANSWER_MS);
    await until('gave up on the hello', () => hung.follower.error !== null, 10_000);
    assert.match(hung.follower.error!, /no hello within 10000 ms/);
    hung.clock.advance(1_000);
    await until('a retry after 1 s', () => fake.connections === 2, 10_000);
  });

  it('a host of another protocol major is refused with both versions named, and its events never read', async () => {
    const fake = await fakeHost((res) => openStream(res, { seq: 1, boot_id: 'b1' }));
    fake.protocol = { major: PROTOCOL.major + 1, minor: 3 };
    cleanups.push(fake.close);
    const f = follow(fake.url, 'peer');
    cleanups.push(() => f.follower.stop());
    await until('refused', () => f.follower.error !== null, 10_000);
    assert.match(
      f.follower.error!,
      new RegExp(
        `protocol ${PROTOCOL.major + 1}\\.3 \\(leo test\\) and this hub ${PROTOCOL.major}\\.${PROTOCOL.minor}`,
      ),
    );
    assert.equal(f.follower.status, 'offline');
    assert.equal(fake.connections, 0, 'no event stream opened');
    assert.equal(fake.stateFetches, 0);
  });

  it('an unreachable host is retried with a doubling backoff capped at 60 s', async () => {
    const fake = await fakeHost((res) => res.socket?.destroy());
    cleanups.push(fake.close);
    const f = follow(fake.url, 'peer');
    cleanups.push(() => f.follower.stop());
    const waits = [1_000, 2_000, 4_000, 8_000, 16_000, 32_000, 60_000, 60_000];
    for (const [i, wait] of waits.entries()) {
      await until(`failure ${i + 1}`, () => f.follower.error !== null && fake.connections === i + 1, 10_000);
      f.clock.advance(wait - 1);
      await new Promise((r) => setTimeout(r, 20));
      assert.equal(fake.connections, i + 1, `no attempt before ${wait} ms`);
      f.clock.advance(1);
      await until(`attempt ${i + 2}`, () => fake.connections === i + 2, 10_000);
    }
    assert.equal(f.follower.status, 'offline');
  });
});
