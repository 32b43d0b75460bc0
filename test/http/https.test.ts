import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import http from 'node:http';
import https from 'node:https';
import path from 'node:path';
import type tls from 'node:tls';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { makeTestCa, type TestCa } from '../helpers/test-ca.js';

/** One HTTPS request trusting only the test CA; resolves with the status, body and the certificate served. */
function get(port: number, p: string, o: { ca: Buffer; host?: string; token?: string }) {
  return new Promise<{ status: number; json: any; serial: string }>((resolve, reject) => {
    const req = https.request(
      {
        host: '127.0.0.1',
        servername: 'localhost',
        port,
        path: p,
        ca: o.ca,
        agent: false,
        headers: { host: o.host ?? `127.0.0.1:${port}`, ...(o.token ? { authorization: `Bearer ${o.token}` } : {}) },
      },
      (res) => {
        const serial = (res.socket as tls.TLSSocket).getPeerCertificate().serialNumber;
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, json: JSON.parse(text), serial }));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

const serialOf = (certFile: string) => new X509Certificate(fs.readFileSync(certFile)).serialNumber;

describe('HTTPS: web.tls makes the TCP listener serve TLS with a certificate kept current', () => {
  let t: TestDaemon;
  let ca: TestCa;
  let cert = '';
  let key = '';

  before(async () => {
    ca = makeTestCa(fs.mkdtempSync(path.join(os.tmpdir(), 'leo-tls-')));
    const first = ca.leaf('first', ['leo.example.ts.net']);
    // The daemon serves fixed paths; a renewal writes new files over them.
    cert = path.join(ca.dir, 'leo-cert.pem');
    key = path.join(ca.dir, 'leo-key.pem');
    fs.copyFileSync(first.cert, cert);
    fs.copyFileSync(first.key, key);
    t = await startTestDaemon({
      web: `  allowed_hosts: [leo.example.ts.net]\n  tls:\n    cert: ${cert}\n    key: ${key}\n`,
    });
  });
  after(async () => {
    await t.stop();
    fs.rmSync(ca.dir, { recursive: true, force: true });
  });

  it('serves the API over HTTPS to a client that trusts the CA, and the app link is https', async () => {
    const r = await get(t.tcp.port!, '/api/v1/version', { ca: ca.caPem, token: t.daemon.operatorToken });
    assert.equal(r.status, 200);
    assert.equal(r.json.ok, true);
    assert.equal(r.serial, serialOf(cert));
    assert.match(t.daemon.appUrl, /^https:\/\/127\.0\.0\.1:\d+\/$/);
  });

  it('still refuses a foreign Host, and accepts an allowed one', async () => {
    const foreign = await get(t.tcp.port!, '/api/v1/version', {
      ca: ca.caPem,
      host: 'evil.example',
      token: t.daemon.operatorToken,
    });
    assert.equal(foreign.status, 403);
    assert.equal(foreign.json.code, 'forbidden_host');
    const allowed = await get(t.tcp.port!, '/health', { ca: ca.caPem, host: 'leo.example.ts.net' });
    assert.equal(allowed.status, 200);
  });

  it('refuses plain HTTP on the TLS port: no HTTP answer comes back', async () => {
    const outcome = await new Promise<string>((resolve) => {
      const req = http.get({ host: '127.0.0.1', port: t.tcp.port!, path: '/health' }, (res) =>
        resolve(`answered ${res.statusCode}`),
      );
      req.on('error', (err) => resolve(`error ${(err as NodeJS.ErrnoException).code ?? err.message}`));
      req.setTimeout(5000, () => req.destroy(new Error('timeout')));
    });
    assert.match(outcome, /^error /);
  });

  it('serves a replaced certificate without a restart; a bad pair is logged and the served one kept', async () => {
    const before = (await get(t.tcp.port!, '/health', { ca: ca.caPem })).serial;
    // A key that belongs to no certificate of these: refused, the old pair stays in service.
    const stray = ca.leaf('stray');
    fs.copyFileSync(stray.key, key);
    await sleep(3000);
    assert.equal((await get(t.tcp.port!, '/health', { ca: ca.caPem })).serial, before);
    const renewed = ca.leaf('renewed', ['leo.example.ts.net']);
    fs.copyFileSync(renewed.cert, cert);
    fs.copyFileSync(renewed.key, key);
    let served = before;
    for (let i = 0; i < 50 && served === before; i++) {
      await sleep(200);
      served = (await get(t.tcp.port!, '/health', { ca: ca.caPem })).serial;
    }
    assert.equal(served, serialOf(renewed.cert));
    assert.notEqual(served, before);
  });
});

describe('HTTPS: a bad pair at start refuses to start', () => {
  it('names the files and the reason', async () => {
    const ca = makeTestCa(fs.mkdtempSync(path.join(os.tmpdir(), 'leo-tls-')));
    const a = ca.leaf('a');
    const b = ca.leaf('b');
    await assert.rejects(
      startTestDaemon({ web: `  tls:\n    cert: ${a.cert}\n    key: ${b.key}\n` }),
      /web\.tls\.cert .*a-cert\.pem and web\.tls\.key .*b-key\.pem are no usable pair/,
    );
    fs.rmSync(ca.dir, { recursive: true, force: true });
  });
});
