import assert from 'node:assert/strict';
import net from 'node:net';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { ManualClock } from '../../src/core/clock.js';
import { HEARTBEAT_MS } from '../../src/events/sse-hub.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { SseClient } from '../helpers/sse-client.js';
import { publishRaw } from '../helpers/raw-publish.js';

describe('/api/v1/events over real sockets', () => {
  let t: TestDaemon;
  const clock = new ManualClock(Date.now());

  before(async () => {
    t = await startTestDaemon({ clock, web: '  sse_queue: 8\n' });
  });
  after(() => t.stop());

  it('N subscribers each get hello, then every event in seq order from hello.seq + 1', async () => {
    publishRaw(t.daemon.bus, 'agent_activity', { n: 0 });
    const clients = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        i % 2 ? SseClient.open(t.tcp, '/api/v1/events', t.daemon.operatorToken) : SseClient.open(t.socket, '/events'),
      ),
    );
    await Promise.all(clients.map((c) => c.waitFor(1)));
    for (let i = 1; i <= 50; i++) publishRaw(t.daemon.bus, 'agent_activity', { n: i });
    for (const c of clients) {
      const events = await c.waitFor(51);
      const hello = events[0]!;
      assert.equal(hello.event, 'hello');
      assert.equal(hello.data.boot_id, t.daemon.bootId);
      assert.ok(Array.isArray(hello.data.features));
      assert.ok(!Number.isNaN(Date.parse(hello.data.at)), 'hello.at is a real time');
      const seqs = events.slice(1).map((e) => e.data.seq);
      assert.equal(seqs[0], hello.data.seq + 1);
      assert.deepEqual(
        seqs,
        seqs.map((_, i) => hello.data.seq + 1 + i),
      );
      assert.deepEqual(
        events.slice(1).map((e) => e.data.n),
        Array.from({ length: 50 }, (_, i) => i + 1),
      );
      c.close();
    }
  });

  it('the stream is plain SSE bytes until the connection closes: no chunked encoding', async () => {
    const sock = net.connect(t.daemon.port, '127.0.0.1');
    let raw = '';
    sock.on('data', (b: Buffer) => (raw += b.toString()));
    sock.write(
      `GET /api/v1/events HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${t.daemon.operatorToken}\r\n\r\n`,
    );
    const until = async (what: () => boolean) => {
      for (let i = 0; i < 200 && !what(); i++) await sleep(10);
      assert.ok(what(), raw);
    };
    await until(() => raw.includes('event: hello'));
    publishRaw(t.daemon.bus, 'agent_activity', { n: 'plain' });
    await until(() => raw.includes('"n":"plain"'));
    const [head, body] = raw.split('\r\n\r\n') as [string, string];
    assert.match(head, /^HTTP\/1\.1 200 OK\r\n/);
    assert.doesNotMatch(head, /transfer-encoding/i);
    assert.match(head, /connection: close/i, 'the body ends with the connection');
    assert.match(body, /^event: hello\ndata: \{.*\}\n\nevent: agent_activity\ndata: \{.*"n":"plain"\}\n\n$/s);
    sock.destroy();
  });

  it('a subscriber that stops reading is disconnected while the others keep receiving', async () => {
    const reader = await SseClient.open(t.tcp, '/api/v1/events', t.daemon.operatorToken);
    await reader.waitFor(1);
    // A raw connection that sends its request and then never reads a byte.
    const stalled = net.connect(t.daemon.port, '127.0.0.1');
    stalled.pause();
    let stalledClosed = false;
    stalled.on('close', () => (stalledClosed = true));
    stalled.on('error', () => {});
    stalled.write(
      `GET /api/v1/events HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${t.daemon.operatorToken}\r\n\r\n`,
    );
    await reader.waitUntil(() => t.daemon.hub.subscribers === 2);
    const droppedBefore = t.daemon.hub.dropped;
    const blob = 'x'.repeat(64 * 1024);
    let published = 0;
    // Publish until the stalled socket's kernel buffers are full and its bounded queue overflows.
    while (t.daemon.hub.dropped === droppedBefore && published < 2000) {
      publishRaw(t.daemon.bus, 'agent_activity', { blob, i: published++ });
      await new Promise((r) => setImmediate(r));
      await reader.waitUntil(() => reader.events.length >= published + 1, 10_000);
    }
    assert.equal(t.daemon.hub.dropped, droppedBefore + 1, 'the stalled subscriber was dropped');
    // Reading now drains what the kernel had buffered and then meets the server's close.
    stalled.resume();
    await reader.waitUntil(() => stalledClosed, 5000);
    publishRaw(t.daemon.bus, 'agent_stopped', {});
    await reader.waitFor(published + 2);
    assert.equal(reader.events.at(-1)!.event, 'agent_stopped');
    assert.equal(reader.ended, false, 'the reading subscriber is still connected');
    assert.equal(t.daemon.hub.subscribers, 1);
    reader.close();
  });

  it('sends a comment heartbeat every 20 s (clock seam)', async () => {
    const c = await SseClient.open(t.tcp, '/api/v1/events', t.daemon.operatorToken);
    await c.waitFor(1);
    assert.equal(c.comments.length, 0);
    clock.advance(HEARTBEAT_MS - 1);
    await sleep(50);
    assert.equal(c.comments.length, 0);
    clock.advance(1);
    await c.waitUntil(() => c.comments.length === 1);
    clock.advance(HEARTBEAT_MS * 2);
    await c.waitUntil(() => c.comments.length === 3);
    assert.deepEqual(c.comments, ['heartbeat', 'heartbeat', 'heartbeat']);
    c.close();
  });

  it('refuses tokens that may not watch', async () => {
    const agent = await SseClient.open(t.tcp, '/api/v1/events', t.daemon.agentToken);
    assert.equal(agent.status, 403);
    const none = await SseClient.open(t.tcp, '/api/v1/events');
    assert.equal(none.status, 401);
  });
});
