import assert from 'node:assert/strict';
import fs from 'node:fs';
import https from 'node:https';
import path from 'node:path';
import { after, before, beforeEach, describe, it } from 'node:test';
import { PushDispatcher } from '../../src/push/dispatcher.js';
import { PushPayload, Subscription, type WebPushSubscription } from '../../src/push/provider.js';
import { pushForMessage, type PushRecord } from '../../src/push/push-payload.js';
import { WebPushProvider, loadOrCreateVapidKeys, topicFor } from '../../src/push/web-push-provider.js';
import {
  browserKeys,
  memoryLogger,
  message,
  selfSignedCert,
  startReceiver,
  tempDir,
  verifyVapid,
  type Receiver,
} from './helpers.js';

/**
 * web-push always speaks HTTPS to the push service (it calls https.request whatever the endpoint's scheme), so the
 * stand-in push service is a loopback HTTPS server with a certificate made by openssl for this run, trusted through
 * the provider's agent option. The test decrypts what arrives with its own RFC 8291 code and checks the VAPID JWT.
 */

const tmp = tempDir();
const tls = selfSignedCert(tmp.dir);
const skip = tls ? false : 'openssl is not installed (Debian package openssl); cannot make a TLS certificate';
after(() => tmp.cleanup());

const record = pushForMessage(
  message({
    kind: 'ask',
    text: 'Deploy to prod? ✅',
    state: 'open',
    input: {
      type: 'buttons',
      options: [
        { value: 'y', label: 'Yes' },
        { value: 'n', label: 'No' },
      ],
    },
  }),
  'Den',
) as PushRecord;
const payload: PushPayload = { ...record, collapse_key: 'message:01JABC', urgency: 'high', silent: false };

describe('WebPushProvider against a loopback push service', { skip }, () => {
  let rx: Receiver;
  let provider: WebPushProvider;
  let agent: https.Agent;
  const browser = browserKeys();
  let sub: WebPushSubscription;

  before(async () => {
    rx = await startReceiver(tls!);
    agent = new https.Agent({ ca: tls!.cert });
    provider = await WebPushProvider.open({
      keyPath: path.join(tmp.dir, 'state', 'vapid.json'),
      subject: 'mailto:ops@example.com',
      agent,
      ttlSeconds: 3600,
    });
  });
  after(async () => {
    agent.destroy();
    await rx.close();
  });
  beforeEach(() => {
    rx.requests.length = 0;
    rx.respond = (_req, res) => res.writeHead(201).end();
    sub = Subscription.parse({
      id: 'browser-1',
      provider: 'web-push',
      endpoint: `${rx.url}/push/v1/abc123`,
      keys: { p256dh: browser.p256dh, auth: browser.auth },
    }) as WebPushSubscription;
  });

  it('delivers an aes128gcm-encrypted payload the browser can decrypt, with VAPID auth and push headers', async () => {
    assert.deepEqual(await provider.send(sub, payload), { status: 'ok' });
    const req = rx.requests[0]!;
    assert.equal(req.method, 'POST');
    assert.equal(req.url, '/push/v1/abc123');
    assert.equal(req.headers['content-encoding'], 'aes128gcm');
    assert.equal(req.headers['content-type'], 'application/octet-stream');
    assert.equal(req.headers.ttl, '3600');
    assert.equal(req.headers.urgency, 'high');
    assert.equal(req.headers.topic, topicFor('message:01JABC'));
    assert.match(req.headers.topic as string, /^[A-Za-z0-9_-]{32}$/);

    const claims = verifyVapid(req.headers.authorization, provider.publicKey());
    assert.equal(claims.aud, rx.url);
    assert.equal(claims.sub, 'mailto:ops@example.com');
    assert.ok(typeof claims.exp === 'number' && claims.exp > Date.now() / 1000);

    const plain = browser.decrypt(req.body);
    assert.deepEqual(PushPayload.parse(JSON.parse(plain.toString('utf8'))), payload);
  });

  it('posts go at normal urgency and share a topic per agent', async () => {
    const post = {
      ...(pushForMessage(message(), 'Den') as PushRecord),
      collapse_key: 'chat:den',
      urgency: 'normal',
      silent: true,
    } as PushPayload;
    await provider.send(sub, post);
    await provider.send(sub, { ...post, message_id: 'another' });
    assert.equal(rx.requests[0]?.headers.urgency, 'normal');
    assert.equal(rx.requests[0]?.headers.topic, rx.requests[1]?.headers.topic);
    assert.notEqual(rx.requests[0]?.headers.topic, topicFor('message:01JABC'));
  });

  it('maps the push service: 404/410 gone, 429/5xx retry with Retry-After, other statuses failed', async () => {
    const cases: [number, Record<string, string>, string][] = [
      [201, {}, 'ok'],
      [404, {}, 'gone'],
      [410, {}, 'gone'],
      [429, { 'retry-after': '30' }, 'retry'],
      [500, {}, 'retry'],
      [503, {}, 'retry'],
      [400, {}, 'failed'],
      [403, {}, 'failed'],
      [413, {}, 'failed'],
    ];
    for (const [status, headers, want] of cases) {
      rx.respond = (_req, res) => res.writeHead(status, headers).end('nope');
      const r = await provider.send(sub, payload);
      assert.equal(r.status, want, String(status));
      if (status === 429) assert.equal(r.status === 'retry' && r.retryAfterMs, 30_000);
    }
  });

  it('network trouble is a retry; a subscription web-push cannot encrypt for is failed', async () => {
    const closed = await startReceiver(tls!);
    const endpoint = `${closed.url}/gone`;
    await closed.close();
    const refused = await provider.send({ ...sub, endpoint }, payload);
    assert.equal(refused.status, 'retry');

    const badKeys = await provider.send({ ...sub, keys: { p256dh: 'short', auth: browser.auth } }, payload);
    assert.equal(badKeys.status, 'failed');
    assert.match(badKeys.status === 'failed' ? badKeys.detail : '', /p256dh/);

    const untrusted = await WebPushProvider.open({ keyPath: path.join(tmp.dir, 'state', 'vapid.json') });
    const tlsError = await untrusted.send(sub, payload);
    assert.equal(tlsError.status, 'retry');
  });

  it('through the dispatcher a 410 removes the subscription', async () => {
    rx.respond = (_req, res) => res.writeHead(410).end();
    const removed: string[] = [];
    const d = new PushDispatcher({
      providers: [provider],
      subscriptions: { list: () => [sub], remove: (id) => void removed.push(id), has: (id) => !removed.includes(id) },
      presence: { viewing: () => false },
      logger: memoryLogger(),
      sleep: async () => undefined,
    });
    const [outcome] = await d.send(record);
    assert.equal(outcome?.status, 'gone');
    assert.deepEqual(removed, ['browser-1']);
  });
});

describe('VAPID keys', () => {
  it('are made once into a 0600 file and reused', async () => {
    const t = tempDir();
    try {
      const file = path.join(t.dir, 'deep', 'dir', 'vapid.json');
      const a = await loadOrCreateVapidKeys(file);
      assert.equal(fs.statSync(file).mode & 0o777, 0o600);
      assert.equal(Buffer.from(a.publicKey, 'base64url').length, 65);
      const b = await loadOrCreateVapidKeys(file);
      assert.deepEqual(a, b);
      const p = await WebPushProvider.open({ keyPath: file });
      assert.equal(p.publicKey(), a.publicKey);
      assert.deepEqual(fs.readdirSync(path.dirname(file)), ['vapid.json'], 'no temporary files left behind');
    } finally {
      t.cleanup();
    }
  });

  it('concurrent first uses agree on one pair', async () => {
    const t = tempDir();
    try {
      const file = path.join(t.dir, 'vapid.json');
      const pairs = await Promise.all(Array.from({ length: 5 }, () => loadOrCreateVapidKeys(file)));
      for (const p of pairs) assert.deepEqual(p, pairs[0]);
    } finally {
      t.cleanup();
    }
  });

  it('a key file readable by others is tightened to 0600', async () => {
    const t = tempDir();
    try {
      const file = path.join(t.dir, 'vapid.json');
      await loadOrCreateVapidKeys(file);
      fs.chmodSync(file, 0o644);
      await loadOrCreateVapidKeys(file);
      assert.equal(fs.statSync(file).mode & 0o777, 0o600);
    } finally {
      t.cleanup();
    }
  });

  it('a damaged key file is an error, not a silent new pair', async () => {
    const t = tempDir();
    try {
      const file = path.join(t.dir, 'vapid.json');
      fs.writeFileSync(file, '{"publicKey": "abc"', { mode: 0o600 });
      await assert.rejects(loadOrCreateVapidKeys(file), /not JSON/);
      fs.writeFileSync(file, '{"publicKey": "abc", "privateKey": "def"}');
      await assert.rejects(loadOrCreateVapidKeys(file), /invalid: publicKey/);
      assert.equal(fs.readFileSync(file, 'utf8'), '{"publicKey": "abc", "privateKey": "def"}');
    } finally {
      t.cleanup();
    }
  });

  it('open() refuses a subject push services would reject', async () => {
    const t = tempDir();
    try {
      await assert.rejects(
        WebPushProvider.open({ keyPath: path.join(t.dir, 'v.json'), subject: 'ops@example.com' }),
        /subject/i,
      );
    } finally {
      t.cleanup();
    }
  });
});

describe('Web Push subscriptions', () => {
  it('need an https endpoint (web-push has no plain-HTTP transport)', () => {
    const keys = { p256dh: 'a', auth: 'b' };
    assert.equal(
      Subscription.safeParse({ id: 'x', provider: 'web-push', endpoint: 'http://127.0.0.1:1/p', keys }).success,
      false,
    );
    assert.equal(
      Subscription.safeParse({ id: 'x', provider: 'web-push', endpoint: 'https://127.0.0.1:1/p', keys }).success,
      true,
    );
  });
});
