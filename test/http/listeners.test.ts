import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { request } from '../helpers/http.js';

describe('listeners, tokens and the envelope (real TCP and unix socket)', () => {
  let t: TestDaemon;
  let deviceToken: string;
  let agentToken: string;
  let clientToken: string;

  before(async () => {
    t = await startTestDaemon({ web: '  allowed_hosts: [leo.example.ts.net]\n  body_limit: 4096\n' });
    agentToken = t.daemon.agentToken;
    deviceToken = t.daemon.tokens.issue('device', 'phone').token;
    clientToken = t.daemon.tokens.issue('client', 'den').token;
  });
  after(() => t.stop());

  it('401 without a token, with a malformed header and with an unknown token', async () => {
    for (const headers of [{}, { authorization: 'Token abc' }, { authorization: 'Bearer leo_op_wrong' }] as Record<
      string,
      string
    >[]) {
      const r = await request(t.tcp, 'GET', '/api/v1/version', { headers });
      assert.equal(r.status, 401, JSON.stringify(headers));
      assert.equal(r.json.ok, false);
      assert.equal(typeof r.json.error, 'string');
    }
  });

  it('403 for a refused token kind, 200 with the operator token', async () => {
    const refused = await request(t.tcp, 'GET', '/metrics', { token: agentToken });
    assert.equal(refused.status, 403);
    assert.match(refused.json.error, /agent/);
    assert.equal((await request(t.tcp, 'GET', '/api/v1/devices', { token: deviceToken })).status, 403);
    assert.equal((await request(t.tcp, 'GET', '/api/v1/devices', { token: clientToken })).status, 403);
    const okay = await t.op('GET', '/api/v1/devices');
    assert.equal(okay.status, 200);
    assert.equal(okay.json.ok, true);
    assert.deepEqual(
      okay.json.data.map((d: { name: string }) => d.name),
      ['phone'],
    );
  });

  it('every token kind reaches a route that takes any token', async () => {
    for (const token of [t.daemon.operatorToken, deviceToken, agentToken, clientToken]) {
      const r = await request(t.tcp, 'GET', '/api/v1/version', { token });
      assert.equal(r.status, 200);
      assert.equal(r.json.data.boot_id, t.daemon.bootId);
    }
  });

  it('refuses a foreign Host or Origin and sends no CORS headers', async () => {
    const token = t.daemon.operatorToken;
    const host = await request(t.tcp, 'GET', '/api/v1/version', { token, headers: { host: 'evil.example:8370' } });
    assert.equal(host.status, 403);
    assert.match(host.json.error, /Host/);
    const origin = await request(t.tcp, 'GET', '/api/v1/version', {
      token,
      headers: { origin: 'https://evil.example' },
    });
    assert.equal(origin.status, 403);
    assert.match(origin.json.error, /Origin/);
    const configured = await request(t.tcp, 'GET', '/health', { headers: { host: 'leo.example.ts.net:8370' } });
    assert.equal(configured.status, 200);
    const preflight = await request(t.tcp, 'OPTIONS', '/api/v1/version', {
      headers: { origin: 'http://localhost:3000', 'access-control-request-method': 'GET' },
    });
    for (const r of [host, origin, configured, preflight])
      assert.deepEqual(
        Object.keys(r.headers).filter((h) => h.startsWith('access-control-')),
        [],
      );
  });

  it('the socket serves the same routes without a token', async () => {
    const r = await request(t.socket, 'GET', '/api/v1/version');
    assert.equal(r.status, 200);
    assert.equal(r.json.data.boot_id, t.daemon.bootId);
    assert.equal((await request(t.socket, 'GET', '/api/v1/devices')).status, 200);
    assert.equal((await request(t.socket, 'GET', '/metrics')).status, 200);
  });

  it('a socket-only route answers 404 on TCP, whatever the token', async () => {
    const r = await t.op('GET', '/events');
    assert.equal(r.status, 404);
    assert.equal(r.json.ok, false);
    const missing = await t.op('GET', '/no/such/route');
    assert.deepEqual(
      missing.json,
      r.json.error.includes('/events') ? { ...r.json, error: 'no route GET /no/such/route' } : null,
    );
  });

  it('the socket file and token files are 0600', () => {
    for (const f of [
      t.daemon.paths.socketFile,
      t.daemon.paths.operatorTokenFile,
      t.daemon.paths.agentTokenFile,
      t.daemon.paths.database,
    ])
      assert.equal(fs.statSync(f).mode & 0o777, 0o600, f);
    assert.equal(fs.statSync(t.daemon.paths.stateDir).mode & 0o777, 0o700);
  });

  it('/health answers on both listeners without a token', async () => {
    for (const target of [t.tcp, t.socket]) {
      const r = await request(target, 'GET', '/health');
      assert.equal(r.status, 200);
      assert.deepEqual(r.json, { ok: true, data: { ready: true, pid: process.pid, boot_id: t.daemon.bootId } });
    }
  });

  it('malformed and oversized bodies get 400 and 413 with a message that says what is wrong', async () => {
    const token = t.daemon.operatorToken;
    const bad = await request(t.tcp, 'POST', '/api/v1/devices', {
      token,
      rawBody: '{"name":',
      headers: { 'content-type': 'application/json' },
    });
    assert.equal(bad.status, 400);
    assert.match(bad.json.error, /malformed JSON/);
    const big = await request(t.tcp, 'POST', '/api/v1/devices', { token, body: { name: 'x'.repeat(5000) } });
    assert.equal(big.status, 413);
    assert.match(big.json.error, /4096-byte limit/);
    const invalid = await request(t.tcp, 'POST', '/api/v1/devices', { token, body: { name: '' } });
    assert.equal(invalid.status, 400);
    assert.match(invalid.json.error, /^body\.name: /);
    assert.equal(invalid.json.details.field, 'name');
    const missing = await request(t.tcp, 'POST', '/api/v1/devices', { token });
    assert.equal(missing.status, 400);
    const wrongType = await request(t.tcp, 'POST', '/api/v1/devices', {
      token,
      rawBody: 'name=x',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    assert.equal(wrongType.status, 415);
    assert.equal(wrongType.json.ok, false);
  });

  it('device tokens: created by the operator API, stored hashed, refused once revoked', async () => {
    const token = t.daemon.operatorToken;
    const created = await request(t.tcp, 'POST', '/api/v1/devices', { token, body: { name: 'ipad' } });
    assert.equal(created.status, 201);
    const secret: string = created.json.data.token;
    assert.match(secret, /^leo_dev_/);
    const dup = await request(t.tcp, 'POST', '/api/v1/devices', { token, body: { name: 'ipad' } });
    assert.equal(dup.status, 409);
    const rows = t.daemon.db.prepare('SELECT * FROM tokens').all();
    assert.equal(JSON.stringify(rows).includes(secret), false, 'the token value is never stored');
    const events = await request(t.tcp, 'GET', '/api/v1/version', { token: secret });
    assert.equal(events.status, 200);
    const revoked = await request(t.tcp, 'DELETE', `/api/v1/devices/${created.json.data.id}`, { token });
    assert.equal(revoked.status, 200);
    assert.equal(revoked.json.data.revoked, true);
    assert.equal((await request(t.tcp, 'GET', '/api/v1/version', { token: secret })).status, 401);
    assert.equal((await request(t.tcp, 'DELETE', `/api/v1/devices/${created.json.data.id}`, { token })).status, 404);
  });

  it('API-client tokens carry can_post', async () => {
    const token = t.daemon.operatorToken;
    const created = await request(t.tcp, 'POST', '/api/v1/clients', {
      token,
      body: { name: 'poster', can_post: true },
    });
    assert.equal(created.status, 201);
    assert.equal(created.json.data.can_post, true);
    const list = await request(t.tcp, 'GET', '/api/v1/clients', { token });
    assert.deepEqual(
      list.json.data.map((c: { name: string; can_post: boolean }) => [c.name, c.can_post]),
      [
        ['den', false],
        ['poster', true],
      ],
    );
  });

  it('/metrics speaks Prometheus text with the daemon readouts', async () => {
    await request(t.tcp, 'GET', '/health');
    const r = await t.op('GET', '/metrics');
    assert.equal(r.status, 200);
    assert.match(String(r.headers['content-type']), /text\/plain/);
    for (const name of [
      'leo_main_loop_delay_seconds{quantile="0.99"}',
      'leo_sse_subscribers',
      'leo_sse_slow_consumers_dropped_total',
      'leo_events_published_total',
      'leo_pool_queue_depth',
      'leo_pool_utilization',
      'leo_http_requests_total{route="/health",method="GET",status="200"}',
    ])
      assert.ok(r.text.includes(name), name);
  });
});
