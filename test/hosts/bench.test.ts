// The hosts bench (issue 31, "tests with real daemons as separate machines") proven on real daemons: a hub and a host
// each in a network namespace of its own (or on loopback ports where namespaces are unavailable, said in the output),
// paired as the owner pairs them, then the link cut and restored, slowed through a fault proxy, and the host SIGKILLed.
// The statuses are the hub's follower's (a silent stream is stale after two heartbeats), so they are waited for; a
// cut link must show within issue 31's 15 s (Done when 4), and what the host stored meanwhile reach the hub's thread.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { z } from 'zod';
import { StateSnapshot } from '../../src/wire/fleet.js';
import { HostEntry, HostInfo, type HostStatus } from '../../src/wire/host.js';
import { MessagePage } from '../../src/wire/message.js';
import { HostBench } from '../helpers/hosts/bench.js';
import type { HostDaemon } from '../helpers/hosts/host-daemon.js';
import { request } from '../helpers/http.js';
import { until } from '../helpers/wait.js';

const CAT = 'templates:\n  cat: { harness: shell, command: "exec cat" }\n';
/** Issue 31, Done when 4: a host whose link is cut is stale or offline in the app within 15 s. */
const CUT_SHOWS_WITHIN_MS = 15_000;

describe('the hosts bench: real daemons as separate machines', () => {
  let bench: HostBench;
  let hub: HostDaemon;
  let box: HostDaemon;

  /**
   * A host as the hub's follower sees it (`hosts` in the hub's /api/v1/state: no probe; the app gets the same change
   * as a host_status event), once its status is one of `statuses`, within `withinMs`.
   */
  const followed = (name: string, statuses: HostStatus[], withinMs = 30_000) =>
    until(
      `${name} ${statuses.join(' or ')} on the hub`,
      async () => {
        const host = (await hub.get('/api/v1/state', StateSnapshot)).hosts?.find((h) => h.name === name);
        return host && statuses.includes(host.status) ? host : false;
      },
      withinMs,
      250,
    ).catch((err: Error) => {
      throw new Error(`${err.message}\n--- the hub's log ---\n${hub.logTail()}`);
    });

  before(async () => {
    bench = HostBench.open();
    [hub, box] = await Promise.all([bench.host('hub'), bench.host('box', CAT)]);
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
    await followed('box', ['online']);
    const [listed] = await hub.get('/api/v1/hosts', z.array(HostEntry));
    assert.equal(listed?.status, 'online', listed?.error);
    assert.equal(typeof listed.rtt_ms, 'number');
  });

  it('a link down shows stale or offline within 15 s; back up, what was posted meanwhile is in the hub thread once', async (t) => {
    assert.equal((await box.op('POST', '/api/v1/agents/spawn', { template: 'cat', name: 'den' })).status, 201);
    /** A post by den in its own thread, as its chat tool makes it, over box's socket, which the cut leaves alone. */
    const post = async (text: string) => {
      const r = await box.op('POST', '/api/agent/den/chat/post', { text });
      assert.equal(r.status, 200, r.text);
      return (r.json.data as { message_id: string }).message_id;
    };
    const last = await post('before the cut');
    const down = Date.now();
    box.link.down();
    const cut: string[] = [];
    try {
      for (const n of [1, 2, 3]) cut.push(await post(`during the cut ${n}`));
      const seen = await followed('box', ['stale', 'offline'], CUT_SHOWS_WITHIN_MS - (Date.now() - down));
      t.diagnostic(`${seen.status} on the hub ${((Date.now() - down) / 1000).toFixed(1)} s after the link went down`);
    } finally {
      box.link.up();
    }
    await followed('box', ['online']);
    const page = await hub.get(`/api/v1/chat/den@box/messages?after=${last}&limit=500`, MessagePage);
    assert.deepEqual(
      page.messages.map((m) => m.id),
      cut,
      'every post of the cut once, in order, and nothing else',
    );
    assert.ok(page.messages.every((m) => m.agent === 'den@box'));
  });

  it('through a proxy adding 20 ms each way the round trip is at least 40 ms', async () => {
    const proxy = await bench.proxy(box);
    proxy.set({ delayMs: 20 });
    const added = await bench.pair(hub, box, { as: 'box-slow', via: proxy });
    assert.equal(added.url, proxy.url);
    const slow = await followed('box-slow', ['online']);
    assert.ok(slow.rtt_ms! >= 40, `rtt ${slow.rtt_ms} ms`);
  });

  it('a host SIGKILLed is offline; restarted on the same home it is the same host', async () => {
    const before = await box.get('/api/v1/host', HostInfo);
    await box.kill();
    await followed('box', ['offline']);
    await box.start();
    assert.equal((await followed('box', ['online'])).host_id, before.host_id);
    assert.equal((await box.get('/api/v1/host', HostInfo)).host_id, before.host_id);
  });
});
