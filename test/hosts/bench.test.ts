// The hosts bench (issue 31, "tests with real daemons as separate machines") proven on real daemons: a hub and a host
// each in a network namespace of its own (or on loopback ports where namespaces are unavailable, said in the output),
// paired as the owner pairs them, then the link cut and restored, slowed through a fault proxy, and the host SIGKILLed.
// The statuses are the hub's follower's (a silent stream is stale after two heartbeats), so they are waited for.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { z } from 'zod';
import { StateSnapshot } from '../../src/wire/fleet.js';
import { HostEntry, HostInfo, type HostStatus } from '../../src/wire/host.js';
import { HostBench } from '../helpers/hosts/bench.js';
import type { HostDaemon } from '../helpers/hosts/host-daemon.js';
import { request } from '../helpers/http.js';
import { until } from '../helpers/wait.js';

describe('the hosts bench: real daemons as separate machines', () => {
  let bench: HostBench;
  let hub: HostDaemon;
  let box: HostDaemon;

  /**
   * A host as the hub's follower sees it (`hosts` in the hub's /api/v1/state: no probe), once its status is one of
   * `statuses`.
   */
  const followed = (name: string, ...statuses: HostStatus[]) =>
    until(
      `${name} ${statuses.join(' or ')} on the hub`,
      async () => {
        const host = (await hub.get('/api/v1/state', StateSnapshot)).hosts?.find((h) => h.name === name);
        return host && statuses.includes(host.status) ? host : false;
      },
      30_000,
      250,
    ).catch((err: Error) => {
      throw new Error(`${err.message}\n--- the hub's log ---\n${hub.logTail()}`);
    });

  before(async () => {
    bench = HostBench.open();
    [hub, box] = await Promise.all([bench.host('hub'), bench.host('box')]);
  });
  after(() => bench?.close());

  it('pairs a hub with a host on another address, listed online with a round trip', async (t) => {
    t.diagnostic(bench.network.note);
    if (bench.network.kind === 'netns') assert.notEqual(box.tcp.host, hub.tcp.host);
    const direct = await request(box.tcp, 'GET', '/api/v1/host', { token: box.operatorToken });
    assert.equal(direct.status, 200, direct.text);
    assert.equal((await request(box.tcp, 'GET', '/api/v1/host')).status, 401, 'TCP asks for a token');
    const added = await bench.pair(hub, box);
    assert.equal(added.url, box.url);
    assert.equal(added.status, 'online');
    await followed('box', 'online');
    const [listed] = await hub.get('/api/v1/hosts', z.array(HostEntry));
    assert.equal(listed?.status, 'online', listed?.error);
    assert.equal(typeof listed.rtt_ms, 'number');
  });

  it('a link down makes the host stale or offline; back up, online again', async () => {
    box.link.down();
    try {
      await followed('box', 'stale', 'offline');
    } finally {
      box.link.up();
    }
    await followed('box', 'online');
  });

  it('through a proxy adding 20 ms each way the round trip is at least 40 ms', async () => {
    const proxy = await bench.proxy(box);
    proxy.set({ delayMs: 20 });
    const added = await bench.pair(hub, box, { as: 'box-slow', via: proxy });
    assert.equal(added.url, proxy.url);
    const slow = await followed('box-slow', 'online');
    assert.ok(slow.rtt_ms! >= 40, `rtt ${slow.rtt_ms} ms`);
  });

  it('a host SIGKILLed is offline; restarted on the same home it is the same host', async () => {
    const before = await box.get('/api/v1/host', HostInfo);
    await box.kill();
    await followed('box', 'offline');
    await box.start();
    assert.equal((await followed('box', 'online')).host_id, before.host_id);
    assert.equal((await box.get('/api/v1/host', HostInfo)).host_id, before.host_id);
  });
});
