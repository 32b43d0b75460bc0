// Issue 20 item 4: connection and event-stream caps. Another local user with no token held 1 100 idle TCP connections
// and the TCP API, the unix socket and `leo agent list` all failed (fd limit 1 024); 1 100 streams from one dashboard
// token did the same; an unauthenticated POST answered 401 kept its connection ~305 s while its body trickled.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import type net from 'node:net';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { runLeoAsync, spawnDaemon, waitForExit } from '../helpers/cli.js';
import { killTmuxServer, startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { request, type Target } from '../helpers/http.js';
import { SseClient } from '../helpers/sse-client.js';
import { makeTempHome, testConfig } from '../helpers/temp-home.js';
import { send } from '../fuzz/raw-http.js';
import { exchange, parseAnswer } from '../fuzz/raw-socket.js';
import { idleConnections, metric, within } from '../helpers/limits.js';
import { until } from '../helpers/wait.js';
import WebSocket from 'ws';

describe('1 100 idle TCP connections without a token, open-file limit 1 024', () => {
  const t = makeTempHome(testConfig().replace('level: warn', 'level: info'));
  let daemon: Awaited<ReturnType<typeof spawnDaemon>>;
  let idle: net.Socket[] = [];
  before(async () => {
    daemon = await spawnDaemon(t.env, { fdLimit: 1024 });
    idle = await idleConnections(daemon.port, 1100, { socketPath: `${t.home}/state/leo.sock` });
  });
  after(async () => {
    for (const s of idle) s.destroy();
    daemon.child.kill('SIGTERM');
    await waitForExit(daemon.child).catch(() => daemon.child.kill('SIGKILL'));
    killTmuxServer(t.home);
    t.cleanup();
  });

  it('leave the unix socket, `leo agent list` and the operator token working', async () => {
    const socket: Target = { socketPath: `${t.home}/state/leo.sock` };
    const list = await within(20_000, 'leo agent list', runLeoAsync(['agent', 'list'], t.env));
    assert.equal(list.status, 0, list.stderr);
    const operator = fs.readFileSync(`${t.home}/state/api.token`, 'utf8').trim();
    const agents = await within(
      5000,
      'GET /api/v1/agents',
      request({ port: daemon.port }, 'GET', '/api/v1/agents', { token: operator }),
    );
    assert.equal(agents.status, 200, agents.text);

    const m = await within(5000, '/metrics', request(socket, 'GET', '/metrics'));
    assert.equal(metric(m.text, 'leo_tcp_connections_max'), 512);
    assert.ok(metric(m.text, 'leo_tcp_connections') <= 512);
    assert.ok(metric(m.text, 'leo_tcp_connections_evicted_total') >= 1100 - 512, m.text);
    assert.equal(metric(m.text, 'leo_process_max_fds'), 1024);
    const stillOpen = idle.filter((s) => !s.destroyed && s.readyState === 'open').length;
    assert.ok(stillOpen <= 512, `${stillOpen} idle connections still open`);
  });
});

describe('caps on event streams, and refusals that end their connection', () => {
  let t: TestDaemon;
  const streams: SseClient[] = [];
  before(async () => {
    t = await startTestDaemon({ web: '  sse_max_subscribers: 6\n  sse_max_per_token: 4\n' });
  });
  after(async () => {
    for (const s of streams) s.close();
    await t.stop();
  });
  const open = async (target: Target, path: string, token?: string) => {
    const s = await SseClient.open(target, path, token);
    streams.push(s);
    return s;
  };

  it('one token gets its share of streams, all tokens together the global cap; the socket is not counted', async () => {
    const dashboard = t.daemon.tokens.issue('client', 'dashboard').token;
    const other = t.daemon.tokens.issue('client', 'other').token;
    for (let i = 0; i < 4; i++) assert.equal((await open(t.tcp, '/api/v1/events', dashboard)).status, 200);
    // Resolves at the headers of a stream too, so a stream that is not refused fails the test rather than hanging it.
    const subscribe = (token: string) =>
      send(t.tcp, { method: 'GET', path: '/api/v1/events', headers: { authorization: `Bearer ${token}` } });
    const fifth = await subscribe(dashboard);
    assert.equal(fifth.status, 429);
    assert.equal(JSON.parse(fifth.text).code, 'too_many_streams');

    for (let i = 0; i < 2; i++) assert.equal((await open(t.tcp, '/api/v1/events', other)).status, 200);
    const full = await subscribe(t.daemon.operatorToken);
    assert.equal(full.status, 503);
    assert.equal(JSON.parse(full.text).code, 'too_many_streams');
    assert.ok(Number(full.headers['retry-after']) > 0);

    const local = await open(t.socket, '/api/v1/events');
    assert.equal(local.status, 200, 'the socket still streams');
    await local.waitFor(1);
    assert.equal((await request(t.tcp, 'GET', '/api/v1/state', { token: dashboard })).status, 200);

    // A stream that closes gives its place back.
    streams[0]!.close();
    await sleep(200);
    const again = await open(t.tcp, '/api/v1/events', t.daemon.operatorToken);
    assert.equal(again.status, 200);
    await again.waitFor(1);

    const m = await request(t.socket, 'GET', '/metrics');
    assert.equal(metric(m.text, 'leo_sse_subscribers_max'), 6);
    assert.equal(metric(m.text, 'leo_sse_subscribers_per_token_max'), 4);
    assert.equal(metric(m.text, 'leo_sse_refused_total'), 2);
    assert.equal(metric(m.text, 'leo_sse_subscribers'), 7);
  });

  it('a 401, 403 or 404 ends its connection at once, however slowly the body still comes', async () => {
    // The default web.request_timeout (5 min) applies: the probe saw such a connection last ~305 s.
    const post = (path: string, auth: string) =>
      `POST ${path} HTTP/1.1\r\nHost: localhost\r\n${auth}Content-Type: application/json\r\nContent-Length: 100000\r\n\r\n`;
    const device = t.daemon.tokens.issue('device', 'phone').token;
    const cases = [
      { what: 'no token', head: post('/api/v1/devices', ''), status: 401 },
      {
        what: 'a device on an operator route',
        head: post('/api/v1/devices', `Authorization: Bearer ${device}\r\n`),
        status: 403,
      },
      { what: 'an unknown URL', head: post('/api/v1/nothing-here', ''), status: 404 },
      {
        what: 'a foreign Host',
        head: post('/api/v1/devices', '').replace('Host: localhost', 'Host: evil.example'),
        status: 403,
      },
    ];
    const body = Array.from({ length: 40 }, () => '{"name":"slow"}');
    const results = await Promise.all(
      cases.map((c) => exchange(t.tcp, [c.head, ...body], { gapMs: 100, maxMs: 6000 })),
    );
    for (const [i, { text, closedAfterMs }] of results.entries()) {
      const c = cases[i]!;
      assert.equal(parseAnswer(text).status, c.status, `${c.what}: ${text}`);
      assert.match(parseAnswer(text).headers, /^connection: close$/im, c.what);
      assert.ok(closedAfterMs !== null && closedAfterMs < 1500, `${c.what}: closed after ${closedAfterMs} ms`);
    }
  });

  it('an authenticated upload that takes its time still goes through', async () => {
    const chunk = Buffer.alloc(256 * 1024, 7);
    const head =
      `POST /api/v1/chat/uploads?filename=big.bin HTTP/1.1\r\nHost: localhost\r\n` +
      `Authorization: Bearer ${t.daemon.operatorToken}\r\nContent-Type: application/octet-stream\r\n` +
      `Content-Length: ${chunk.length * 12}\r\nConnection: close\r\n\r\n`;
    const { text } = await exchange(t.tcp, [head, ...Array.from({ length: 12 }, () => chunk)], {
      gapMs: 150,
      maxMs: 10_000,
    });
    const answer = parseAnswer(text);
    assert.equal(answer.status, 201, text.slice(0, 300));
    assert.equal((answer.body as { data: { bytes: number } }).data.bytes, chunk.length * 12);
  });
});

describe("an agent's terminal and the sessions endpoint's streams count against the stream caps", () => {
  let t: TestDaemon;
  const streams: SseClient[] = [];
  const sockets: WebSocket[] = [];
  before(async () => {
    // The chat engine is never reached: every turn here is refused before it begins.
    t = await startTestDaemon({
      web: '  sse_max_subscribers: 4\n  sse_max_per_token: 2\n',
      config: `templates:
  sh: { harness: shell, command: "exec cat", chat: { enabled: true, engine: claude-cli } }
`,
    });
    const r = await request(t.tcp, 'POST', '/api/v1/agents/spawn', {
      token: t.daemon.operatorToken,
      body: { template: 'sh', name: 'sh' },
    });
    assert.equal(r.status, 201, r.text);
  });
  after(async () => {
    for (const s of streams) s.close();
    for (const w of sockets) w.terminate();
    await t.stop();
  });
  const open = async (path: string, token: string) => {
    const s = await SseClient.open(t.tcp, path, token);
    streams.push(s);
    return s;
  };
  /** A /ws upgrade: 101 when it opens, else the status of the refusal. */
  const upgrade = (token: string) =>
    new Promise<number>((resolve) => {
      const ws = new WebSocket(`ws://127.0.0.1:${t.daemon.port}/ws`, { headers: { authorization: `Bearer ${token}` } });
      sockets.push(ws);
      ws.once('open', () => resolve(101));
      ws.on('unexpected-response', (req, res) => {
        resolve(res.statusCode ?? 0);
        req.destroy();
      });
      ws.on('error', () => undefined);
    });
  const refusal = async (path: string, token: string) => {
    const r = await send(t.tcp, { method: 'GET', path, headers: { authorization: `Bearer ${token}` } });
    return { status: r.status, code: r.status === 200 ? 'a stream opened' : (JSON.parse(r.text).code as string) };
  };

  it('a token holding terminal streams and /ws sockets gets no more streams of any kind', async () => {
    const op = t.daemon.operatorToken;
    assert.equal((await open('/api/v1/agents/sh/terminal/stream', op)).status, 200);
    assert.equal(await upgrade(op), 101);
    assert.deepEqual(await refusal('/api/v1/events', op), { status: 429, code: 'too_many_streams' });
    assert.deepEqual(await refusal('/api/v1/agents/sh/terminal/stream', op), {
      status: 429,
      code: 'too_many_streams',
    });
    assert.equal(await upgrade(op), 429);
    // A streamed turn is refused before it begins, so no session is left with a turn no one reads.
    const turn = await request(t.tcp, 'POST', '/agents/sh/chat', { token: op, body: { message: 'hi', sse: true } });
    assert.equal(turn.status, 429, turn.text);
    assert.equal(turn.json.code, 'too_many_streams');
    assert.equal((await request(t.tcp, 'GET', '/agents/sh/sessions', { token: op })).json.sessions.length, 0);

    // All tokens together: a device's two terminal streams fill the daemon's four.
    const phone = t.daemon.tokens.issue('device', 'phone').token;
    for (let i = 0; i < 2; i++) assert.equal((await open('/api/v1/agents/sh/terminal/stream', phone)).status, 200);
    const dashboard = t.daemon.tokens.issue('client', 'dashboard').token;
    assert.deepEqual(await refusal('/api/v1/events', dashboard), { status: 503, code: 'too_many_streams' });

    const m = await request(t.socket, 'GET', '/metrics');
    assert.equal(metric(m.text, 'leo_sse_refused_total'), 5);

    // A terminal stream closed gives its place back.
    streams[0]!.close();
    await until('the place given back', async () => (await open('/api/v1/events', dashboard)).status === 200, 3000);
  });
});
