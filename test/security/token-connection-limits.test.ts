// Issue 28 items 2 and 3. A read-only dashboard token held 511 keep-alive connections and the operator and the paired
// phone got 503; over TLS the cap counted only finished handshakes, so another local user with no token took the
// daemon to its descriptor limit and the unix socket and `leo` commands failed too.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { runLeoAsync, spawnDaemon, waitForExit } from '../helpers/cli.js';
import { killTmuxServer, startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { request } from '../helpers/http.js';
import { SseClient } from '../helpers/sse-client.js';
import { makeTempHome, testConfig } from '../helpers/temp-home.js';
import { makeTestCa } from '../helpers/test-ca.js';
import { idleConnections, metric, within } from '../helpers/limits.js';

/** One keep-alive TCP connection of its own: a request on it, then it stays open until the daemon closes it. */
interface Held {
  status: number;
  body: string;
  closed: () => boolean;
  destroy: () => void;
}

/** A request on a connection of its own, kept alive afterwards (as a browser's or an HTTP client's pool keeps it). */
function hold(port: number, p: string, token: string, tls?: { ca: Buffer }): Promise<Held> {
  const agent = tls
    ? new https.Agent({ keepAlive: true, maxSockets: 1, ca: tls.ca })
    : new http.Agent({ keepAlive: true, maxSockets: 1 });
  const lib = tls ? https : http;
  return new Promise((resolve, reject) => {
    const req = lib.request(
      {
        host: '127.0.0.1',
        ...(tls ? { servername: 'localhost' } : {}),
        port,
        path: p,
        agent,
        headers: { host: `127.0.0.1:${port}`, authorization: `Bearer ${token}` },
      },
      (res) => {
        const socket = res.socket;
        let closed = false;
        socket.once('close', () => (closed = true));
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (body += c));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            body,
            closed: () => closed || socket.destroyed,
            destroy: () => agent.destroy(),
          }),
        );
      },
    );
    // A connection refused at the cap is answered raw and closed, or reset over TLS.
    req.on('error', reject);
    req.end();
  });
}

describe('per-token connection limits and idle eviction (web.max_connections 16, per token 8)', () => {
  let t: TestDaemon;
  const held: Held[] = [];
  const streams: SseClient[] = [];
  before(async () => {
    t = await startTestDaemon({ web: '  max_connections: 16\n  max_connections_per_token: 8\n' });
  });
  after(async () => {
    for (const h of held) h.destroy();
    for (const s of streams) s.close();
    await t.stop();
  });
  const keep = async (p: string, token: string) => {
    const h = await within(5000, p, hold(t.tcp.port!, p, token));
    held.push(h);
    return h;
  };

  it('a dashboard token keeps its share; the operator and a paired phone still get in, clients give way first', async () => {
    const dashboard = t.daemon.tokens.issue('client', 'dashboard').token;
    const phone = t.daemon.tokens.issue('device', 'phone').token;
    const other = t.daemon.tokens.issue('client', 'other').token;

    // The hog opens as many keep-alive connections as the whole cap: each is a valid, answered request.
    const hog: Held[] = [];
    for (let i = 0; i < 16; i++) hog.push(await keep('/api/v1/state', dashboard));
    assert.deepEqual(
      hog.map((h) => h.status),
      Array(16).fill(200),
    );
    await sleep(300);
    assert.deepEqual(
      hog.map((h) => h.closed()),
      [...Array(8).fill(true), ...Array(8).fill(false)],
      "the hog's own oldest idle connections were closed once it held its share",
    );

    const op = await keep('/api/v1/agents', t.daemon.operatorToken);
    assert.equal(op.status, 200, op.body);
    const dev = await keep('/api/v1/agents', phone);
    assert.equal(dev.status, 200, dev.body);

    // Another client fills the cap with idle keep-alive connections: 8 + 6 + the operator's and the phone's = 16.
    for (let i = 0; i < 6; i++) assert.equal((await keep('/api/v1/state', other)).status, 200);
    const op2 = await keep('/api/v1/agents', t.daemon.operatorToken);
    assert.equal(op2.status, 200, op2.body);
    const dev2 = await keep('/api/v1/agents', phone);
    assert.equal(dev2.status, 200, dev2.body);
    await sleep(300);
    assert.equal(op.closed() || dev.closed(), false, "the owner's older idle connections stay: a client's go first");
    assert.deepEqual(
      hog.slice(8).map((h) => h.closed()),
      [true, true, false, false, false, false, false, false],
      "the hog's longest-idle connections made room",
    );

    const m = await request(t.socket, 'GET', '/metrics');
    assert.equal(metric(m.text, 'leo_tcp_connections_max'), 16);
    assert.equal(metric(m.text, 'leo_tcp_connections_per_token_max'), 8);
    assert.ok(metric(m.text, 'leo_tcp_connections') <= 16);
    assert.equal(metric(m.text, 'leo_tcp_connections_refused_total'), 0);
  });

  it("a token whose share is all busy has its next request refused (429), others' are not", async () => {
    const watcher = t.daemon.tokens.issue('client', 'watcher').token;
    for (let i = 0; i < 8; i++) {
      const s = await SseClient.open(t.tcp, '/api/v1/events', watcher);
      streams.push(s);
      assert.equal(s.status, 200);
    }
    const ninth = await request(t.tcp, 'GET', '/api/v1/state', { token: watcher });
    assert.equal(ninth.status, 429, ninth.text);
    assert.equal(ninth.json.code, 'too_many_connections');
    assert.deepEqual(ninth.json.details, { scope: 'token', limit: 8 });
    assert.equal(ninth.headers.connection, 'close');
    assert.equal((await t.op('GET', '/api/v1/agents')).status, 200);
    const m = await request(t.socket, 'GET', '/metrics');
    assert.equal(metric(m.text, 'leo_tcp_connections_refused_per_token_total'), 1);
  });
});

describe('over TLS, connections that never finish a handshake are counted and capped (open-file limit 320)', () => {
  const caDir = fs.mkdtempSync(path.join(os.tmpdir(), 'leo-tls-cap-'));
  const ca = makeTestCa(caDir);
  const leaf = ca.leaf('leo');
  const t = makeTempHome(
    testConfig('', `  tls:\n    cert: ${leaf.cert}\n    key: ${leaf.key}\n`).replace('level: warn', 'level: info'),
  );
  let daemon: Awaited<ReturnType<typeof spawnDaemon>>;
  let raw: net.Socket[] = [];
  before(async () => {
    daemon = await spawnDaemon(t.env, { fdLimit: 320 });
  });
  after(async () => {
    for (const s of raw) s.destroy();
    daemon.child.kill('SIGTERM');
    await waitForExit(daemon.child).catch(() => daemon.child.kill('SIGKILL'));
    killTmuxServer(t.home);
    t.cleanup();
    fs.rmSync(caDir, { recursive: true, force: true });
  });

  it('400 silent connections leave the unix socket, `leo agent list` and the operator over HTTPS working', async () => {
    // Over TLS too a connection counts from its accept, before any handshake.
    raw = await idleConnections(daemon.port, 400, { socketPath: `${t.home}/state/leo.sock` });

    const list = await within(20_000, 'leo agent list', runLeoAsync(['agent', 'list'], t.env));
    assert.equal(list.status, 0, list.stderr);
    const m = await within(5000, '/metrics', request({ socketPath: `${t.home}/state/leo.sock` }, 'GET', '/metrics'));
    const cap = metric(m.text, 'leo_tcp_connections_max');
    assert.equal(cap, 320 - 256);
    assert.ok(metric(m.text, 'leo_tcp_connections') <= cap, m.text);
    assert.ok(metric(m.text, 'leo_tcp_connections_evicted_total') >= 400 - cap);
    const stillOpen = raw.filter((s) => !s.destroyed && s.readyState === 'open').length;
    assert.ok(stillOpen <= cap, `${stillOpen} silent connections still open`);

    const operator = fs.readFileSync(`${t.home}/state/api.token`, 'utf8').trim();
    const op = await within(
      5000,
      'GET /api/v1/agents over TLS',
      hold(daemon.port, '/api/v1/agents', operator, { ca: ca.caPem }),
    );
    op.destroy();
    assert.equal(op.status, 200, op.body);
  });
});
