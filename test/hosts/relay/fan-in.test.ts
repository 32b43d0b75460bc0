// The hub's fan-in (issue 31) with two real daemons on loopback ports: the host's agents in the hub's state as
// name@host, its events on the hub's stream renamed and renumbered, its status, and the hub's restart resuming.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { StateSnapshot } from '../../../src/wire/fleet.js';
import { startTestDaemon, type TestDaemon } from '../../helpers/daemon.js';
import { freePort } from '../../helpers/free-port.js';
import { advanceHubUntil } from '../../helpers/hub-clock.js';
import { pairHost } from '../../helpers/pair-host.js';
import { SseClient } from '../../helpers/sse-client.js';
import { until } from '../../helpers/wait.js';

const HOST_CONFIG = 'templates:\n  cat: { harness: shell, command: "exec cat" }\n';

describe('a hub follows a host', () => {
  let host: TestDaemon;
  let hub: TestDaemon;
  let stream: SseClient;
  const hubState = () => hub.get('/api/v1/state', StateSnapshot);
  const names = (s: StateSnapshot) => s.agents.map((a) => a.name).sort();
  const typesAfter = (from: number) => stream.events.slice(from).map((e) => e.event);

  before(async () => {
    // A fixed port: the host restarts where the hub's client.hosts says it is.
    host = await startTestDaemon({ config: HOST_CONFIG, web: `  listen: 127.0.0.1:${await freePort()}\n` });
    hub = await startTestDaemon({ config: HOST_CONFIG });
    assert.equal((await host.op('POST', '/api/v1/agents/spawn', { template: 'cat', name: 'den' })).status, 201);
    assert.equal((await hub.op('POST', '/api/v1/agents/spawn', { template: 'cat', name: 'home' })).status, 201);
    stream = await SseClient.open(hub.tcp, '/api/v1/events', hub.daemon.operatorToken);
    await stream.waitFor(1);
    await pairHost(hub, host, 'box');
  });
  after(async () => {
    stream.close();
    await Promise.all([hub.stop(), host.stop()]);
  });

  it('lists the host’s agents as name@host beside its own, with the host and its status', async () => {
    await until('den@box on the hub', async () => names(await hubState()).includes('den@box'), 10_000);
    const state = await hubState();
    assert.deepEqual(names(state), ['den@box', 'home']);
    const den = state.agents.find((a) => a.name === 'den@box')!;
    assert.equal(den.host, 'box');
    assert.equal(den.status, 'running');
    assert.equal(state.agents.find((a) => a.name === 'home')!.host, undefined, 'local agents keep bare names');
    assert.deepEqual(
      state.hosts?.map((h) => [h.name, h.status]),
      [['box', 'online']],
    );
    const hostState = stream.events.find((e) => e.event === 'host_state');
    assert.deepEqual(
      hostState?.data.agents.map((a: { name: string }) => a.name),
      ['den@box'],
    );
    assert.ok(stream.events.some((e) => e.event === 'host_status' && e.data.status === 'online'));
  });

  it('re-publishes the host’s events renamed, on the hub’s own seq with no gap', async () => {
    const from = stream.events.length;
    assert.equal((await host.op('POST', '/api/v1/agents/spawn', { template: 'cat', name: 'fox' })).status, 201);
    const sent = await hub.op('POST', '/api/v1/chat/home/messages', { text: 'local' });
    assert.equal(sent.status, 201, sent.text);
    const posted = await host.op('POST', '/api/v1/chat/den/messages', { text: 'hello den' });
    assert.equal(posted.status, 201, posted.text);
    await stream.waitUntil(
      () => stream.events.slice(from).some((e) => e.event === 'chat.message' && e.data.message.agent === 'den@box'),
      10_000,
    );
    const spawned = stream.events.slice(from).find((e) => e.event === 'agent_spawned' && e.data.host === 'box');
    assert.equal(spawned?.data.agent.name, 'fox@box');
    assert.equal(spawned?.data.agent.host, 'box');
    const message = stream.events.slice(from).find((e) => e.event === 'chat.message' && e.data.host === 'box');
    assert.equal(message?.data.message.text, 'hello den');
    const seqs = stream.events.slice(1).map((e) => e.data.seq as number);
    assert.deepEqual(
      seqs,
      seqs.map((_, i) => seqs[0]! + i),
      'one sequence, the hub’s, without a gap',
    );
    assert.deepEqual(names(await hubState()), ['den@box', 'fox@box', 'home']);
  });

  it('a removed agent leaves the hub’s fleet: its stop, then the host’s state refetched without it', async () => {
    const from = stream.events.length;
    const removed = await host.op('DELETE', '/api/v1/agents/fox');
    assert.ok(removed.status === 200 || removed.status === 204, removed.text);
    await stream.waitUntil(
      () =>
        stream.events
          .slice(from)
          .some((e) => e.event === 'host_state' && !e.data.agents.some((a: { name: string }) => a.name === 'fox@box')),
      10_000,
    );
    assert.ok(typesAfter(from).includes('agent_stopped'));
    assert.deepEqual(names(await hubState()), ['den@box', 'home']);
  });

  it('the hub’s restart resumes from its saved cursor, showing the last known fleet at once', async () => {
    const before = (await hubState()).agents.find((a) => a.name === 'den@box')!;
    await hub.restart();
    // Read at once: the saved view is what the hub shows until the host answers (then the host's own, as fresh).
    const held = (await hubState()).agents.find((a) => a.name === 'den@box');
    assert.deepEqual(
      held && [held.name, held.host, held.status, held.template, held.started_at],
      [before.name, before.host, before.status, before.template, before.started_at],
      'held across the restart',
    );
    await until('online again', async () => (await hubState()).hosts?.[0]?.status === 'online', 10_000);
  });

  it('a host that stops is offline with its agents as last known; back, it is followed again', async () => {
    stream.close();
    stream = await SseClient.open(hub.tcp, '/api/v1/events', hub.daemon.operatorToken);
    await stream.waitFor(1);
    await host.daemon.close();
    await advanceHubUntil(hub, 'offline', async () => (await hubState()).hosts?.[0]?.status === 'offline', {
      stepMs: 1_000,
      timeoutMs: 15_000,
    });
    const state = await hubState();
    assert.equal(state.agents.find((a) => a.name === 'den@box')?.status, 'running', 'last known');
    assert.match(state.hosts![0]!.error!, /ended its event stream|ECONNREFUSED/);
    assert.ok(stream.events.some((e) => e.event === 'host_status' && e.data.status === 'offline'));

    await host.restart();
    await advanceHubUntil(hub, 'online', async () => (await hubState()).hosts?.[0]?.status === 'online', {
      stepMs: 2_000,
      timeoutMs: 20_000,
    });
    assert.ok(
      stream.events.some((e) => e.event === 'host_state' && e.data.host === 'box'),
      'a new boot: refetched',
    );
  });
});
