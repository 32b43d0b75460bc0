import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ManualClock } from '../../src/core/clock.js';
import { verifySignature } from '../../src/push/webhook-provider.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { request } from '../helpers/http.js';
import { claudeStopFailure } from '../helpers/transcripts.js';
import { MessagePage } from '../../src/wire/message.js';

const SECRET = 'a-long-enough-shared-secret';

describe('pushes for chat messages, to a webhook subscription on 127.0.0.1', () => {
  let t: TestDaemon;
  let receiver: http.Server;
  let url = '';
  const got: { body: any; signed: boolean }[] = [];

  before(async () => {
    receiver = http.createServer((req, res) => {
      let raw = '';
      req.on('data', (c) => (raw += c));
      req.on('end', () => {
        got.push({
          body: JSON.parse(raw),
          signed: verifySignature(SECRET, raw, String(req.headers['x-leo-signature'])),
        });
        res.end('ok');
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(receiver.address() as { port: number }).port}/push`;
    // The test's webhook receiver listens on loopback, which a webhook may reach only when allowed.
    t = await startTestDaemon({
      config:
        'chat:\n  webhook_allowed_hosts: [127.0.0.1]\ntemplates:\n  cat: { harness: shell, command: "exec cat" }\n',
    });
    await t.op('POST', '/api/v1/agents/spawn', { template: 'cat', name: 'leo-den' });
  });
  after(async () => {
    await t.stop();
    receiver.close();
  });

  it('a device registers a webhook; the agent’s post pushes (signed), the user’s own message does not', async () => {
    const device = t.daemon.tokens.issue('device', 'phone').token;
    const sub = await request(t.tcp, 'POST', '/api/v1/push/subscriptions', {
      token: device,
      body: { provider: 'webhook', url, secret: SECRET, device: 'phone' },
    });
    assert.equal(sub.status, 201, sub.text);
    const listed = await request(t.tcp, 'GET', '/api/v1/push/subscriptions', { token: device });
    assert.equal(JSON.stringify(listed.json.data).includes(SECRET), false, 'secrets never served');
    assert.equal(JSON.stringify(listed.json.data).includes(url), false);
    const key = await request(t.tcp, 'GET', '/api/v1/push/vapid-public-key', { token: device });
    assert.match(key.json.data.public_key, /^[A-Za-z0-9_-]{80,}$/);

    await t.op('POST', '/api/v1/chat/leo-den/messages', { text: 'from me' });
    const posted = await request(t.tcp, 'POST', '/api/agent/leo-den/chat/post', {
      token: t.daemon.agentToken,
      body: { text: 'build is green' },
    });
    for (let i = 0; i < 50 && got.length === 0; i++) await sleep(50);
    await sleep(300);
    assert.equal(got.length, 1, 'only the agent’s message pushed');
    assert.equal(got[0]!.signed, true);
    assert.deepEqual(
      [got[0]!.body.kind, got[0]!.body.title, got[0]!.body.body, got[0]!.body.message_id, got[0]!.body.message_kind],
      ['chat', 'den', 'build is green', posted.json.data.message_id, 'text'],
    );
    const bad = await request(t.tcp, 'POST', '/api/v1/push/subscriptions', {
      token: device,
      body: { provider: 'webhook', url, secret: 'short' },
    });
    assert.equal(bad.status, 400);
    assert.equal(
      (await request(t.tcp, 'DELETE', `/api/v1/push/subscriptions/${sub.json.data.id}`, { token: device })).status,
      200,
    );
  });

  // Before the next test moves the daemon's clock past the transcript's real times.
  it('a failed turn sends the attention push, even to a device that wants asks only (issue 27)', async () => {
    const device = t.daemon.tokens.issue('device', 'watch').token;
    const sub = await request(t.tcp, 'POST', '/api/v1/push/subscriptions', {
      token: device,
      body: { provider: 'webhook', url, secret: SECRET, device: 'watch', prefs: { mode: 'asks_only' } },
    });
    assert.equal(sub.status, 201, sub.text);
    const text = 'deploy it';
    const sent = await t.op('POST', '/api/v1/chat/leo-den/messages', { text });
    const state = async () => (await t.get('/api/v1/chat/leo-den/messages', MessagePage)).messages;
    for (let i = 0; i < 100; i++) {
      if ((await state()).find((m: { id: string }) => m.id === sent.json.data.id)?.state === 'delivered') break;
      await sleep(50);
    }
    const before = got.length;
    await request(t.socket, 'POST', '/hooks/stop-failure', {
      body: { agent: 'leo-den', payload: claudeStopFailure(t.home, text) },
    });
    for (let i = 0; i < 100 && got.length === before; i++) await sleep(50);
    assert.deepEqual(
      got.slice(before).map((g) => [g.body.kind, g.body.title, g.body.body]),
      [['needs_input', 'den', 'Could not answer: not logged in — check its environment or run /login']],
    );
  });

  it('a thread reported open does not push; closing it, or the report going stale, pushes again', async () => {
    const device = t.daemon.tokens.issue('device', 'tablet').token;
    await request(t.tcp, 'POST', '/api/v1/push/subscriptions', {
      token: device,
      body: { provider: 'webhook', url, secret: SECRET, device: 'tablet' },
    });
    const presence = (viewing: unknown) =>
      request(t.tcp, 'PUT', '/api/v1/chat/leo-den/presence', { token: device, body: { viewing } });
    const post = async (text: string) => {
      const before = got.length;
      await request(t.tcp, 'POST', '/api/agent/leo-den/chat/post', { token: t.daemon.agentToken, body: { text } });
      for (let i = 0; i < 20 && got.length === before; i++) await sleep(25);
      await sleep(200);
      return got.slice(before).map((g) => g.body.body);
    };
    const open = await presence(true);
    assert.equal(open.status, 200, open.text);
    assert.deepEqual(open.json.data, { agent: 'leo-den', viewing: true, expires_in_ms: 90_000 });
    assert.deepEqual(await post('seen on screen'), []);
    await presence(false);
    assert.deepEqual(await post('thread closed'), ['thread closed']);
    await presence(true);
    (t.clock as ManualClock).advance(91_000);
    assert.deepEqual(await post('report went stale'), ['report went stale']);
    assert.equal((await presence('yes')).status, 400);
    assert.equal(
      (await request(t.tcp, 'PUT', '/api/v1/chat/leo-den/presence', { body: { viewing: true } })).status,
      401,
    );
  });
});
