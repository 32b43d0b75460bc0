// Certificate pinning for a host's own TLS listener (issue 31): the pin's form, the comparison, and when an invite
// may pin at all.
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import fs from 'node:fs';
import { describe, it } from 'node:test';
import { pinOfDer, pinOfPem, pinRefusal, reachesOwnListener } from '../../src/hosts/cert-pin.js';
import { HostPin } from '../../src/wire/host.js';
import { makeTestCa } from '../helpers/test-ca.js';
import { tempDir } from '../helpers/temp-home.js';

describe('certificate pins', () => {
  it('is the SHA-256 of the leaf’s DER, as openssl’s fingerprint without colons, in the HostPin form', () => {
    const ca = makeTestCa(tempDir('leo-pin-'));
    const leaf = ca.leaf('box');
    // A chain (leaf first, then its CA) pins its leaf.
    const chain = Buffer.concat([fs.readFileSync(leaf.cert), ca.caPem]);
    const x509 = new X509Certificate(fs.readFileSync(leaf.cert));
    const pin = pinOfPem(chain);
    assert.equal(pin, `sha256:${x509.fingerprint256.replaceAll(':', '').toLowerCase()}`);
    assert.equal(pin, pinOfDer(x509.raw));
    assert.ok(HostPin.safeParse(pin).success);
    assert.notEqual(pinOfPem(fs.readFileSync(ca.leaf('other').cert)), pin);
  });

  it('refuses another certificate naming the start of both pins, and says how to pair again', () => {
    const pinned = `sha256:${'a'.repeat(64)}`;
    const served = `sha256:${'b'.repeat(64)}`;
    assert.equal(pinRefusal(pinned, pinned), null);
    const why = pinRefusal(pinned, served)!;
    assert.match(why, /certificate changed/);
    assert.ok(why.includes(`sha256:${'b'.repeat(12)}…`) && why.includes(`sha256:${'a'.repeat(12)}…`), why);
    assert.match(why, /leo host invite.*leo host remove.*leo host add/);
  });

  it('pins only an https URL to the listener’s own port, and a loopback listener only for a loopback URL', () => {
    const lan = { host: '0.0.0.0', port: 8370 };
    assert.equal(reachesOwnListener('https://10.0.0.5:8370', lan), true);
    assert.equal(reachesOwnListener('https://box.lan:8370/', lan), true);
    assert.equal(reachesOwnListener('http://10.0.0.5:8370', lan), false);
    // A proxy in front (Tailscale Serve on 443) is not this listener.
    assert.equal(reachesOwnListener('https://box.example.ts.net', lan), false);
    assert.equal(reachesOwnListener('https://box.lan', { host: '0.0.0.0', port: 443 }), true);
    const loopback = { host: '127.0.0.1', port: 8370 };
    assert.equal(reachesOwnListener('https://127.0.0.1:8370', loopback), true);
    assert.equal(reachesOwnListener('https://localhost:8370', loopback), true);
    assert.equal(reachesOwnListener('https://box.lan:8370', loopback), false);
    assert.equal(reachesOwnListener('https://[::1]:8370', { host: '::1', port: 8370 }), true);
  });
});
