import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { after, before, beforeEach, describe, it } from 'node:test';
import { PushDispatcher, type SubscriptionSource } from '../../src/push/dispatcher.js';
import { PushPayload, Subscription, type WebhookSubscription } from '../../src/push/provider.js';
import { pushForMessage, type PushRecord } from '../../src/push/push-payload.js';
import { WebhookProvider, signBody, verifySignature } from '../../src/push/webhook-provider.js';
import { memoryLogger, message, startReceiver, type Receiver } from './helpers.js';

const secret = 'per-subscription-secret-0123456789';
const record = pushForMessage(
  message({
    kind: 'ask',
    text: 'Ship it?',
    state: 'open',
    input: { type: 'buttons', options: [{ value: 'y', label: 'Yes' }] },
  }),
  'Den',
) as PushRecord;
const payload: PushPayload = { ...record, collapse_key: 'message:x', urgency: 'high', silent: false };

describe('WebhookProvider against a loopback receiver', () => {
  let rx: Receiver;
  let sub: WebhookSubscription;

  before(async () => {
    rx = await startReceiver();
  });
  after(async () => {
    await rx.close();
  });
  beforeEach(() => {
    rx.requests.length = 0;
    rx.respond = (_req, res) => res.writeHead(204).end();
    sub = Subscription.parse({
      id: 'hook-1',
      provider: 'webhook',
      url: `${rx.url}/leo/push`,
      secret,
    }) as WebhookSubscription;
  });

  it('POSTs the JSON payload signed with HMAC-SHA256 over the raw body', async () => {
    const result = await new WebhookProvider().send(sub, payload);
    assert.deepEqual(result, { status: 'ok' });
    assert.equal(rx.requests.length, 1);
    const req = rx.requests[0]!;
    assert.equal(req.method, 'POST');
    assert.equal(req.url, '/leo/push');
    assert.equal(req.headers['content-type'], 'application/json');
    const expected = `sha256=${createHmac('sha256', secret).update(req.body).digest('hex')}`;
    assert.equal(req.headers['x-leo-signature'], expected);
    assert.equal(verifySignature(secret, req.body, req.headers['x-leo-signature'] as string), true);
    assert.equal(verifySignature('another-secret-0123456789', req.body, expected), false);
    assert.equal(verifySignature(secret, Buffer.concat([req.body, Buffer.from(' ')]), expected), false);
    assert.equal(verifySignature(secret, req.body, undefined), false);
    assert.deepEqual(PushPayload.parse(JSON.parse(req.body.toString('utf8'))), payload);
    assert.equal(signBody(secret, req.body), expected);
  });

  it('maps statuses: 410 gone; 408, 429 and 5xx retry with Retry-After; other 4xx and redirects failed', async () => {
    const cases: [number, Record<string, string>, string][] = [
      [200, {}, 'ok'],
      [202, {}, 'ok'],
      [410, {}, 'gone'],
      [404, {}, 'failed'],
      [400, {}, 'failed'],
      [401, {}, 'failed'],
      [302, { location: 'http://127.0.0.1:1/elsewhere' }, 'failed'],
      [408, {}, 'retry'],
      [500, {}, 'retry'],
      [503, { 'retry-after': '7' }, 'retry'],
      [429, { 'retry-after': '5' }, 'retry'],
    ];
    for (const [status, headers, want] of cases) {
      rx.respond = (_req, res) => res.writeHead(status, headers).end('body');
      const r = await new WebhookProvider().send(sub, payload);
      assert.equal(r.status, want, String(status));
      if (headers['retry-after'])
        assert.equal(r.status === 'retry' && r.retryAfterMs, Number(headers['retry-after']) * 1000);
    }
    // The redirect was not followed.
    assert.ok(rx.requests.every((r) => r.url === '/leo/push'));
  });

  it('a receiver that does not answer in time is a retry', async () => {
    rx.respond = () => undefined;
    const started = Date.now();
    const r = await new WebhookProvider({ timeoutMs: 200 }).send(sub, payload);
    assert.deepEqual(r, { status: 'retry', detail: 'webhook timed out' });
    assert.ok(Date.now() - started < 5000);
  });

  it('a refused connection is a retry', async () => {
    const closed = await startReceiver();
    const url = closed.url;
    await closed.close();
    const r = await new WebhookProvider().send({ ...sub, url }, payload);
    assert.equal(r.status, 'retry');
    assert.match(r.status === 'retry' ? r.detail : '', /ECONNREFUSED/);
  });

  it('refuses a subscription of another provider', async () => {
    const r = await new WebhookProvider().send(
      { id: 'w', provider: 'web-push', endpoint: 'https://x.example/', keys: { p256dh: 'a', auth: 'b' } },
      payload,
    );
    assert.equal(r.status, 'failed');
  });

  it('through the dispatcher: 410 removes the subscription; 500 is tried 3 times then failed', async () => {
    const gone = await startReceiver();
    const broken = await startReceiver();
    gone.respond = (_req, res) => res.writeHead(410).end();
    broken.respond = (_req, res) => res.writeHead(500).end();
    try {
      const subs = [
        { ...sub, id: 'ok' },
        { ...sub, id: 'gone', url: `${gone.url}/x` },
        { ...sub, id: 'broken', url: `${broken.url}/x` },
      ];
      const removed: string[] = [];
      const source: SubscriptionSource = {
        list: () => subs.filter((s) => !removed.includes(s.id)),
        remove: (id) => void removed.push(id),
        has: (id) => !removed.includes(id),
      };
      const slept: number[] = [];
      const logger = memoryLogger();
      const d = new PushDispatcher({
        providers: [new WebhookProvider()],
        subscriptions: source,
        presence: { viewing: () => false },
        logger,
        sleep: async (ms) => void slept.push(ms),
      });
      const outcomes = await d.send(record);
      assert.deepEqual(outcomes, [
        { subscription: 'ok', status: 'ok', attempts: 1 },
        { subscription: 'gone', status: 'gone', attempts: 1, detail: 'webhook answered 410' },
        { subscription: 'broken', status: 'failed', attempts: 3, detail: 'webhook answered 500' },
      ]);
      assert.deepEqual(removed, ['gone']);
      assert.equal(gone.requests.length, 1);
      assert.equal(broken.requests.length, 3);
      assert.deepEqual(slept, [1000, 2000]);
      // Each retry is the same signed body.
      const sigs = new Set(broken.requests.map((r) => r.headers['x-leo-signature']));
      assert.equal(sigs.size, 1);
      // The next dispatch no longer reaches the removed subscription.
      await d.send(record);
      assert.equal(gone.requests.length, 1);
      // Logs name subscriptions, never the secret or the URL.
      const logged = JSON.stringify(logger.lines);
      assert.ok(!logged.includes(secret));
      assert.ok(!logged.includes(gone.url));
    } finally {
      await gone.close();
      await broken.close();
    }
  });
});
