// The hosts bench (issue 31, "tests with real daemons as separate machines") proven on real daemons: a hub and a host
// each in a network namespace of its own (or on loopback ports where namespaces are unavailable, said in the output),
// paired as the owner pairs them, then the link cut and restored, slowed through a fault proxy, and the host SIGKILLed.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { z } from 'zod';
import { HostEntry, HostInfo } from '../../src/wire/host.js';
import { HostBench } from '../helpers/hosts/bench.js';
import type { HostDaemon } from '../helpers/hosts/host-daemon.js';
import { request } from '../helpers/http.js';
import { until } from '../helpers/wait.js';

describe('the hosts bench: real daemons as separate machines', () => {
  let bench: HostBench;
  let hub: HostDaemon;
  let box: HostDaemon;

  /** The hub's live probe of every host it follows (`leo host list`). */
  const hosts = async () => new Map((await hub.get('/api/v1/hosts', z.array(HostEntry))).map((h) => [h.name, h]));
  const statusOf = async (name: string) => (await hosts()).get(name)?.status;

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
    const listed = (await hosts()).get('box');
    assert.equal(listed?.status, 'online', listed?.error);
    assert.equal(typeof listed.rtt_ms, 'number');
  });

  it('a link down makes the host offline within the client’s timeout; back up, online again', async () => {
    box.link.down();
    try {
      const cut = (await hosts()).get('box');
      assert.equal(cut?.status, 'offline');
      assert.match(cut.error ?? '', /did not answer/);
    } finally {
      box.link.up();
    }
    await until('the host online again', async () => (await statusOf('box')) === 'online', 15_000, 250);
  });

  it('through a proxy adding 20 ms each way the round trip is at least 40 ms; blackholed, only that route is down', async () => {
    const proxy = await bench.proxy(box);
    proxy.set({ delayMs: 20 });
    const added = await bench.pair(hub, box, { as: 'box-slow', via: proxy });
    assert.equal(added.url, proxy.url);
    const slow = (await hosts()).get('box-slow');
    assert.equal(slow?.status, 'online', slow?.error);
    assert.ok(slow.rtt_ms! >= 40, `rtt ${slow.rtt_ms} ms`);

    proxy.set({ mode: { kind: 'blackhole' } });
    const both = await hosts();
    assert.equal(both.get('box-slow')?.status, 'offline');
    assert.match(both.get('box-slow')?.error ?? '', /no answer within/);
    assert.equal(both.get('box')?.status, 'online', 'the direct route is untouched');
    proxy.set({ mode: { kind: 'forward' } });
  });

  it('a host SIGKILLed is offline; restarted on the same home it is the same host', async () => {
    const before = await box.get('/api/v1/host', HostInfo);
    await box.kill();
    assert.equal(await statusOf('box'), 'offline');
    await box.start();
    const back = (await hosts()).get('box');
    assert.equal(back?.status, 'online', back?.error);
    assert.equal(back.host_id, before.host_id);
    assert.equal((await box.get('/api/v1/host', HostInfo)).host_id, before.host_id);
  });
});
