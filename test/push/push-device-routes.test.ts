// A device's own push settings through the API (issue 17): preferences on its subscriptions (per agent too), a test
// push that reaches its subscriptions only, and the delivery log of its own subscriptions: sent, suppressed by its
// preferences or because a thread was on screen. Webhook subscriptions to a loopback receiver stand for the devices.
import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { DELIVERY_LOG_SIZE, DeliveryLog } from '../../src/push/delivery-log.js';
import { DeliveryEntry, SubscriptionSummary } from '../../src/wire/push.js';

describe('push settings of a device, through the API', () => {
  let t: TestDaemon;
  let receiver: http.Server;
  let base = '';
  const got: { path: string; body: any }[] = [];
  const subs: Record<string, string> = {};
  const tokens: Record<string, string> = {};
  const holder = (name: string) => t.as(tokens[name]!);
  const received = async (n: number) => {
    for (let i = 0; i < 100 && got.length < n; i++) await sleep(20);
    await sleep(200);
  };
  const post = (text: string) => t.as(t.daemon.agentToken).op('POST', '/api/agent/den/chat/post', { text });

  before(async () => {
    receiver = http.createServer((req, res) => {
      let raw = '';
      req.on('data', (c) => (raw += c));
      req.on('end', () => {
        got.push({ path: req.url ?? '', body: JSON.parse(raw) });
        res.end('ok');
      });
    });
    await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', r));
    base = `http://127.0.0.1:${(receiver.address() as { port: number }).port}`;
    t = await startTestDaemon({
      config:
        'chat:\n  webhook_allowed_hosts: [127.0.0.1]\ntemplates:\n  cat: { harness: shell, command: "exec cat" }\n',
    });
    await t.op('POST', '/api/v1/agents/spawn', { template: 'cat', name: 'den' });
    for (const device of ['phone', 'tablet']) {
      tokens[device] = t.daemon.tokens.issue('device', device).token;
      const r = await holder(device).op('POST', '/api/v1/push/subscriptions', {
        provider: 'webhook',
        url: `${base}/${device}`,
        secret: 'a-long-enough-shared-secret',
      });
      assert.equal(r.status, 201, r.text);
      subs[device] = r.json.data.id;
    }
  });
  after(async () => {
    await t.stop();
    receiver.close();
  });

  it('preferences are set on the device’s own subscription only, and validated', async () => {
    const phone = await holder('phone').op('PUT', `/api/v1/push/subscriptions/${subs.phone}/prefs`, {
      mode: 'none',
      agents: { den: 'all' },
    });
    assert.equal(phone.status, 200, phone.text);
    assert.deepEqual(phone.json.data.prefs, { mode: 'none', agents: { den: 'all' } });
    const foreign = await holder('phone').op('PUT', `/api/v1/push/subscriptions/${subs.tablet}/prefs`, { mode: 'all' });
    assert.equal(foreign.status, 404);
    const bad = await holder('tablet').op('PUT', `/api/v1/push/subscriptions/${subs.tablet}/prefs`, { mode: 'loud' });
    assert.equal(bad.status, 400);
    assert.equal(
      (await holder('tablet').op('PUT', `/api/v1/push/subscriptions/${subs.tablet}/prefs`, { mode: 'none' })).status,
      200,
    );
    const listed = await holder('phone').get('/api/v1/push/subscriptions', z.array(SubscriptionSummary));
    assert.deepEqual(listed[0]!.prefs, { mode: 'none', agents: { den: 'all' } });
  });

  it('a test push reaches the asking device’s subscriptions only, whatever its preferences', async () => {
    got.length = 0;
    const r = await holder('tablet').op('POST', '/api/v1/push/test', {});
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(
      r.json.data.deliveries.map((d: any) => [d.subscription, d.kind, d.outcome]),
      [[subs.tablet, 'test', 'sent']],
    );
    await received(1);
    assert.deepEqual(
      got.map((g) => [g.path, g.body.kind]),
      [['/tablet', 'test']],
    );
  });

  it('the delivery log says what became of each push, per device: sent, suppressed by preferences or presence', async () => {
    got.length = 0;
    await post('build is green');
    await received(1);
    assert.deepEqual(
      got.map((g) => g.path),
      ['/phone'],
      'den pushes to the phone (its per-agent mode), not the tablet',
    );
    assert.equal((await holder('phone').op('PUT', '/api/v1/chat/den/presence', { viewing: true })).status, 200);
    await post('while the phone watches');
    await sleep(300);
    const phone = (await holder('phone').op('GET', '/api/v1/push/deliveries')).json.data;
    assert.deepEqual(
      phone.map((d: any) => [d.subscription, d.outcome, d.reason ?? null]),
      [
        [subs.phone, 'suppressed', 'viewing'],
        [subs.phone, 'sent', null],
      ],
    );
    assert.equal(phone[0].title, 'den');
    assert.equal(JSON.stringify(phone).includes('while the phone watches'), false, 'no message text kept');
    const tablet = await holder('tablet').get('/api/v1/push/deliveries', z.array(DeliveryEntry));
    assert.deepEqual(
      tablet.map((d) => [d.outcome, d.reason ?? null]),
      [
        ['suppressed', 'mode'],
        ['suppressed', 'mode'],
        ['sent', null],
      ],
    );
    const all = await t.get('/api/v1/push/deliveries', z.array(DeliveryEntry));
    assert.equal(all.length, 5, 'the operator sees every subscription’s');
  });
});

describe('DeliveryLog', () => {
  it('keeps the last entries per subscription, newest first, and forgets a removed subscription', () => {
    const log = new DeliveryLog();
    const entry = (i: number, subscription = 'a') => ({
      at: `2026-12-01T10:00:${String(i % 60).padStart(2, '0')}Z`,
      subscription,
      kind: 'chat' as const,
      agent: 'den',
      title: 'den',
      message_id: String(i),
      outcome: 'sent' as const,
    });
    for (let i = 0; i < DELIVERY_LOG_SIZE + 20; i++) log.record(entry(i));
    log.record(entry(0, 'b'));
    const a = log.of(['a']);
    assert.equal(a.length, DELIVERY_LOG_SIZE);
    assert.equal(a[0]!.message_id, String(DELIVERY_LOG_SIZE + 19));
    assert.equal(log.of(['a', 'b']).length, DELIVERY_LOG_SIZE + 1);
    log.forget('a');
    assert.deepEqual(
      log.of(['a', 'b']).map((e) => e.subscription),
      ['b'],
    );
  });
});
