// Issue 20 item 3: revoking a device did not end what it already held. An event stream opened before revocation
// kept receiving chat text, and push subscriptions were not bound to the device that made them (`device` was
// whatever the body said) and outlived it: a webhook registered by a revoked phone received the next agent message.
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { DestinationStream } from 'pino';
import { z } from 'zod';
import { createLogger } from '../../src/core/logger.js';
import { startTestDaemon, type Caller, type TestDaemon } from '../helpers/daemon.js';
import { SseClient } from '../helpers/sse-client.js';
import { until } from '../helpers/wait.js';
import { probe } from './probe.js';
import { SubscriptionSummary } from '../../src/wire/push.js';
import { IssuedToken } from '../../src/wire/tokens.js';

/** A webhook receiver on loopback that records the body of every push it is sent, by path. */
async function receiver() {
  const got: { path: string; body: any }[] = [];
  const server = http.createServer((req, res) => {
    let text = '';
    req.on('data', (c: Buffer) => (text += c.toString()));
    req.on('end', () => {
      got.push({ path: req.url ?? '', body: JSON.parse(text) });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = (path: string) => `http://127.0.0.1:${(server.address() as AddressInfo).port}${path}`;
  return { got, url, close: () => new Promise<void>((r) => server.close(() => r())) };
}

describe('revoking a device or API client ends what its token holds', () => {
  let t: TestDaemon;
  let hooks: Awaited<ReturnType<typeof receiver>>;
  const logLines: string[] = [];
  const issue = async (route: string, name: string, extra: object = {}) => {
    const r = await t.op('POST', route, { name, ...extra });
    assert.equal(r.status, 201, r.text);
    return IssuedToken.parse(r.json.data);
  };
  const agentPost = async (text: string) => {
    const r = await t.as(t.daemon.agentToken).op('POST', '/api/agent/den/chat/post', { text });
    assert.equal(r.status, 200, r.text);
  };

  before(async () => {
    // The webhook receiver is on loopback, which webhooks reach only when the host is allowed.
    const destination: DestinationStream = { write: (line: string) => void logLines.push(line) };
    t = await startTestDaemon({
      config:
        'chat:\n  webhook_allowed_hosts: [127.0.0.1]\ntemplates:\n  cat: { harness: shell, command: "exec cat" }\n',
      logger: createLogger('debug', destination),
    });
    assert.equal((await t.op('POST', '/api/v1/agents/spawn', { template: 'cat', name: 'den' })).status, 201);
    hooks = await receiver();
  });
  after(async () => {
    await hooks.close();
    await t.stop();
  });

  it("a device's and a client's event streams, and an upload still arriving, close at revocation", async () => {
    const phone = await issue('/api/v1/devices', 'phone');
    const dashboard = await issue('/api/v1/clients', 'dashboard', { can_post: true });
    const other = await issue('/api/v1/devices', 'tablet');
    const streams = {
      phone: await SseClient.open(t.tcp, '/api/v1/events', phone.token),
      dashboard: await SseClient.open(t.tcp, '/api/v1/events', dashboard.token),
      tablet: await SseClient.open(t.tcp, '/api/v1/events', other.token),
      operator: await SseClient.open(t.tcp, '/api/v1/events', t.daemon.operatorToken),
    };
    for (const s of Object.values(streams)) await s.waitFor(1);
    // An upload whose body is still trickling in when the phone is revoked.
    const upload = http.request({
      host: '127.0.0.1',
      port: t.daemon.port,
      method: 'POST',
      path: '/api/v1/chat/uploads?filename=big.bin&agent=den',
      headers: {
        authorization: `Bearer ${phone.token}`,
        'content-type': 'application/octet-stream',
        'content-length': '1000000',
      },
    });
    let uploadClosed = false;
    upload.on('error', () => (uploadClosed = true));
    upload.on('close', () => (uploadClosed = true));
    upload.write(Buffer.alloc(1000));
    await sleep(200);
    assert.equal(uploadClosed, false);

    const at = Date.now();
    assert.equal((await t.op('DELETE', `/api/v1/devices/${phone.id}`)).status, 200);
    assert.equal((await t.op('DELETE', '/api/v1/clients/dashboard')).status, 200);
    await until('the revoked streams to end', () => streams.phone.ended && streams.dashboard.ended, 1000, 10);
    await until('the upload to be cut off', () => uploadClosed, 1000, 10);
    assert.ok(Date.now() - at < 1000, `closed ${Date.now() - at} ms after revocation`);
    // The cut upload is the caller gone, not a fault of the daemon's (issue 28).
    await sleep(200);
    const errors = logLines.filter((l) => JSON.parse(l).level >= 50);
    assert.deepEqual(errors, [], 'no error logged for the cut upload');

    // Nobody else's stream was touched, and what the revoked phone would have read now reaches only them.
    await agentPost('after the phone was revoked');
    for (const s of [streams.tablet, streams.operator])
      await until('the message', () => s.events.some((e) => e.event === 'chat.message'), 5000);
    assert.equal(streams.tablet.ended || streams.operator.ended, false);
    assert.ok(!JSON.stringify(streams.phone.events).includes('after the phone was revoked'));
    // The token opens nothing new either.
    assert.equal((await probe(t.tcp, 'GET', '/api/v1/events', { token: phone.token })).status, 401);
    assert.equal((await probe(t.tcp, 'GET', '/api/v1/events', { token: dashboard.token })).status, 401);
    for (const s of Object.values(streams)) s.close();
    assert.equal((await t.op('DELETE', `/api/v1/devices/${other.id}`)).status, 200);
  });

  it('a kept-alive connection the revoked token used before is not cut under the next caller’s request', async () => {
    const phone = await issue('/api/v1/devices', 'pooled phone');
    const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
    const over = (token: string, method: string, path: string) =>
      new Promise<number>((resolve, reject) => {
        const req = http.request(
          {
            host: '127.0.0.1',
            port: t.daemon.port,
            method,
            path,
            agent,
            headers: { authorization: `Bearer ${token}` },
          },
          (res) => res.resume().on('end', () => resolve(res.statusCode ?? 0)),
        );
        req.on('error', reject);
        req.end();
      });
    assert.equal(await over(phone.token, 'GET', '/api/v1/version'), 200);
    // The same pooled socket carries the operator's revocation of that very token.
    assert.equal(await over(t.daemon.operatorToken, 'DELETE', `/api/v1/devices/${phone.id}`), 200);
    assert.equal(await over(phone.token, 'GET', '/api/v1/version'), 401);
    agent.destroy();
  });

  it('a device token cannot open a WebSocket or a session stream at all: those are the operator’s', async () => {
    const phone = await issue('/api/v1/devices', 'ws phone');
    assert.equal((await probe(t.tcp, 'GET', '/ws', { token: phone.token, upgrade: true })).status, 403);
    assert.equal((await probe(t.tcp, 'GET', '/sessions/x/stream', { token: phone.token })).status, 403);
    assert.equal((await probe(t.tcp, 'POST', '/agents/den/chat', { token: phone.token, body: {} })).status, 403);
    assert.equal((await t.op('DELETE', `/api/v1/devices/${phone.id}`)).status, 200);
  });

  it('a webhook registered by a revoked device gets nothing at the next agent message', async () => {
    const phone = await issue('/api/v1/devices', 'pushed phone');
    const register = (token: string, path: string) =>
      t.as(token).op('POST', '/api/v1/push/subscriptions', {
        provider: 'webhook',
        url: hooks.url(path),
        secret: 'a-long-enough-secret-value',
      });
    assert.equal((await register(phone.token, '/phone')).status, 201);
    assert.equal((await register(t.daemon.operatorToken, '/owner')).status, 201);
    await agentPost('first');
    await until('both pushes', () => hooks.got.filter((g) => g.body.body === 'first').length === 2, 10_000);

    assert.equal((await t.op('DELETE', `/api/v1/devices/${phone.id}`)).status, 200);
    await agentPost('second, after revocation');
    await until(
      'the owner’s push',
      () => hooks.got.some((g) => g.path === '/owner' && g.body.body?.startsWith('second')),
      10_000,
    );
    await sleep(500);
    assert.deepEqual(
      hooks.got.filter((g) => g.path === '/phone').map((g) => g.body.body),
      ['first'],
      'the revoked phone’s webhook received nothing more',
    );
    const listed = await t.get('/api/v1/push/subscriptions', z.array(SubscriptionSummary));
    assert.deepEqual(
      listed.map((s) => s.device ?? null),
      [null],
      'its subscription is gone',
    );
  });

  it('a revoked device’s “thread on screen” report stops silencing the pushes of that thread', async () => {
    const phone = await issue('/api/v1/devices', 'viewing phone');
    const reg = await t.op('POST', '/api/v1/push/subscriptions', {
      provider: 'webhook',
      url: hooks.url('/watcher'),
      secret: 'a-long-enough-secret-value',
    });
    assert.equal(reg.status, 201, reg.text);
    const viewing = await t.as(phone.token).op('PUT', '/api/v1/chat/den/presence', { viewing: true });
    assert.equal(viewing.status, 200, viewing.text);
    await agentPost('while the phone shows the thread');
    assert.equal((await t.op('DELETE', `/api/v1/devices/${phone.id}`)).status, 200);
    await agentPost('after the phone was revoked, on screen no more');
    await until(
      'the push once the phone is revoked',
      () => hooks.got.some((g) => g.path === '/watcher' && g.body.body.startsWith('after the phone')),
      5000,
    );
    assert.ok(!hooks.got.some((g) => g.path === '/watcher' && g.body.body.startsWith('while')), 'silenced before');
    assert.equal((await t.op('DELETE', `/api/v1/push/subscriptions/${reg.json.data.id}`)).status, 200);
  });

  it('a device registers, sees and deletes only its own subscriptions; the operator sees all', async () => {
    const phone = await issue('/api/v1/devices', 'own phone');
    const tablet = await issue('/api/v1/devices', 'own tablet');
    const hook = (device?: string) => ({
      provider: 'webhook',
      url: hooks.url('/x'),
      secret: 'a-long-enough-secret-value',
      ...(device ? { device } : {}),
    });

    const spoofed = await t.as(phone.token).op('POST', '/api/v1/push/subscriptions', hook('own tablet'));
    assert.equal(spoofed.status, 403, spoofed.text);
    assert.equal(spoofed.json.code, 'forbidden');
    const mine = await t.as(phone.token).op('POST', '/api/v1/push/subscriptions', hook('own phone'));
    assert.equal(mine.status, 201, mine.text);
    const unnamed = await t.as(phone.token).op('POST', '/api/v1/push/subscriptions', hook());
    assert.equal(unnamed.json.data.device, 'own phone', 'registered in the device’s own name');
    const theirs = await t.as(tablet.token).op('POST', '/api/v1/push/subscriptions', hook());
    assert.equal(theirs.status, 201);

    const ids = async (c: Caller) =>
      (await c.get('/api/v1/push/subscriptions', z.array(SubscriptionSummary))).map((s) => s.id).sort();
    assert.deepEqual(await ids(t.as(phone.token)), [mine.json.data.id, unnamed.json.data.id]);
    assert.deepEqual(await ids(t.as(tablet.token)), [theirs.json.data.id]);
    const all = await ids(t);
    for (const id of [mine.json.data.id, unnamed.json.data.id, theirs.json.data.id]) assert.ok(all.includes(id));

    const steal = await t.as(phone.token).op('DELETE', `/api/v1/push/subscriptions/${theirs.json.data.id}`);
    assert.equal(steal.status, 404, 'another device’s subscription is not there for it');
    assert.ok((await ids(t)).includes(theirs.json.data.id));
    assert.equal((await t.as(phone.token).op('DELETE', `/api/v1/push/subscriptions/${mine.json.data.id}`)).status, 200);
    assert.equal((await t.op('DELETE', `/api/v1/push/subscriptions/${theirs.json.data.id}`)).status, 200);
  });
});
