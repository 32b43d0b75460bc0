import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isPublicAddress, webhookTargetRefusal } from '../../src/push/webhook-target.js';

describe('webhook targets', () => {
  it('tells public addresses from loopback, private, link-local and reserved ones', () => {
    for (const a of ['93.184.216.34', '8.8.8.8', '2606:4700:4700::1111']) assert.equal(isPublicAddress(a), true, a);
    for (const a of [
      '127.0.0.1',
      '127.8.9.10',
      '0.0.0.0',
      '10.0.0.1',
      '172.16.5.4',
      '172.31.255.255',
      '192.168.1.1',
      '169.254.169.254',
      '100.100.100.100',
      '224.0.0.1',
      '255.255.255.255',
      '::',
      '::1',
      'fd00::1',
      'fe80::1',
      '::ffff:127.0.0.1',
      '::ffff:169.254.169.254',
      'not an address',
    ])
      assert.equal(isPublicAddress(a), false, a);
  });

  it('refuses a name when any of its addresses is not public, unless the host is allowed', async () => {
    const resolve = async (host: string) =>
      ({ 'mixed.example': ['93.184.216.34', '127.0.0.1'], 'public.example': ['93.184.216.34'] })[host] ??
      Promise.reject(new Error('ENOTFOUND'));
    assert.equal(await webhookTargetRefusal('https://public.example/hook', [], resolve), null);
    assert.match((await webhookTargetRefusal('https://mixed.example/hook', [], resolve))!, /resolves to 127\.0\.0\.1/);
    assert.match((await webhookTargetRefusal('https://nowhere.example/', [], resolve))!, /does not resolve/);
    assert.match((await webhookTargetRefusal('file:///etc/passwd', [], resolve))!, /http or https/);
    assert.equal(await webhookTargetRefusal('http://mixed.example:8080/', ['MIXED.example'], resolve), null);
    assert.equal(await webhookTargetRefusal('http://[::1]:9/', ['[::1]'], resolve), null);
  });
});
