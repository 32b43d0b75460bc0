// Issue 28 item 5: Web Push endpoints skipped the address check webhooks get, so a device could make the daemon connect
// to internal hosts and read the error back. Checked through the resolver seam and with address literals; nothing here
// connects anywhere.
import assert from 'node:assert/strict';
import os from 'node:os';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { WebPushProvider } from '../../src/push/web-push-provider.js';
import { pushEndpointRefusal } from '../../src/push/webhook-target.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';

const KEYS = {
  p256dh: 'BNcRdreALRFXTkOOUHK1EtK2wtaz5Ry4YfYCA_0QTpQtUbVlUls0VJXg7A8u-Ts1XbjhazAkj7I99e8QcYP7DkM',
  auth: 'tBHItJI5svbpez7KI4CCXg',
};

describe('Web Push endpoints: public addresses only unless allowed', () => {
  it('refuses an endpoint whose host resolves to a private, loopback or link-local address', async () => {
    const resolve = (table: Record<string, string[]>) => async (host: string) => {
      const found = table[host];
      if (!found) throw new Error('ENOTFOUND');
      return found;
    };
    const dns = resolve({
      'fcm.googleapis.com': ['142.250.74.10'],
      'metadata.internal': ['169.254.169.254'],
      'rebind.example': ['93.184.216.34', '10.0.0.7'],
    });
    assert.equal(await pushEndpointRefusal('https://fcm.googleapis.com/fcm/send/x', [], dns), null);
    assert.match(
      (await pushEndpointRefusal('https://metadata.internal/latest', [], dns)) ?? '',
      /^the push endpoint host metadata.internal resolves to 169.254.169.254, a loopback, private or link-local address; list the host in chat.webhook_allowed_hosts/,
    );
    assert.match((await pushEndpointRefusal('https://rebind.example/', [], dns)) ?? '', /resolves to 10.0.0.7/);
    assert.match((await pushEndpointRefusal('https://[::1]:8443/', [], dns)) ?? '', /resolves to ::1/);
    assert.match((await pushEndpointRefusal('https://nowhere.example/', [], dns)) ?? '', /does not resolve/);
    assert.match((await pushEndpointRefusal('http://fcm.googleapis.com/', [], dns)) ?? '', /must be https/);
    assert.equal(await pushEndpointRefusal('https://metadata.internal/x', ['metadata.internal'], dns), null);
  });

  it('a refused endpoint is never sent to, at each send', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'leo-push-endpoint-'));
    try {
      const asked: string[] = [];
      const provider = await WebPushProvider.open({
        keyPath: path.join(dir, 'vapid.json'),
        timeoutMs: 200,
        refusal: async (endpoint) => {
          asked.push(endpoint);
          return 'the push endpoint host 10.9.8.7 resolves to 10.9.8.7, a loopback, private or link-local address';
        },
      });
      const r = await provider.send({ id: 's', provider: 'web-push', endpoint: 'https://10.9.8.7/push', keys: KEYS }, {
        title: 't',
        body: 'b',
        urgency: 'normal',
        collapse_key: 'k',
      } as never);
      assert.deepEqual(r, {
        status: 'failed',
        detail: 'the push endpoint host 10.9.8.7 resolves to 10.9.8.7, a loopback, private or link-local address',
      });
      assert.deepEqual(asked, ['https://10.9.8.7/push']);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  describe('through the daemon', () => {
    let t: TestDaemon;
    before(async () => {
      t = await startTestDaemon();
    });
    after(async () => {
      await t.stop();
    });

    it('a subscription to an internal endpoint is refused with 400 naming the field', async () => {
      for (const endpoint of [
        'https://169.254.169.254/latest/meta-data',
        'https://10.0.0.5/push',
        'https://127.0.0.1:9/x',
      ]) {
        const r = await t.op('POST', '/api/v1/push/subscriptions', { provider: 'web-push', endpoint, keys: KEYS });
        assert.equal(r.status, 400, r.text);
        assert.equal(r.json.code, 'webhook_target_refused');
        assert.equal(r.json.details?.field, 'endpoint');
        assert.match(r.json.error, /^the push endpoint host /);
      }
      const listed = await t.op('GET', '/api/v1/push/subscriptions');
      assert.deepEqual(listed.json.data, []);
    });
  });
});
