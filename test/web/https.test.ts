// Leo Web over HTTPS (issue 17, "Reach beyond the desk"): the daemon serves TLS itself (web.tls) with a certificate
// from a throwaway CA. Chromium cannot be handed a CA here, so it trusts the leaf's public key alone
// (--ignore-certificate-errors-spki-list) with certificate errors otherwise enforced: it pairs and shows the fleet.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { chromium, type Browser } from 'playwright-core';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { request } from '../helpers/http.js';
import { makeTestCa, type TestCa } from '../helpers/test-ca.js';
import { CHROMIUM, launchBrowser, PHONE, Screenshots, watchPage } from './browser.js';

describe('Leo Web over HTTPS with a certificate the browser trusts', () => {
  let t: TestDaemon;
  let ca: TestCa;
  let spki = '';
  let trusting: Browser;
  const shots = new Screenshots();

  before(async () => {
    ca = makeTestCa(fs.mkdtempSync(path.join(os.tmpdir(), 'leo-tls-web-')));
    const leaf = ca.leaf('leo');
    spki = leaf.spki;
    t = await startTestDaemon({
      config: 'templates:\n  cat: { harness: shell, command: "exec cat" }\n',
      web: `  tls:\n    cert: ${leaf.cert}\n    key: ${leaf.key}\n`,
    });
    // The socket stays plain HTTP: the CLI and tests reach it as before.
    const spawned = await request(t.socket, 'POST', '/api/v1/agents/spawn', { body: { template: 'cat', name: 'den' } });
    assert.equal(spawned.status, 201, spawned.text);
    trusting = await chromium.launch({
      executablePath: CHROMIUM,
      args: [`--ignore-certificate-errors-spki-list=${spki}`],
    });
  });
  after(async () => {
    await trusting?.close();
    await t?.stop();
    fs.rmSync(ca.dir, { recursive: true, force: true });
  });

  it('pairs through an https link and shows the live fleet', async () => {
    const issued = await request(t.socket, 'POST', '/api/v1/devices/pairing-codes', { body: { name: 'phone' } });
    assert.equal(issued.status, 201, issued.text);
    const link: string = issued.json.data.url;
    assert.match(link, /^https:\/\/127\.0\.0\.1:\d+\/#pair=/);
    const context = await trusting.newContext({ viewport: PHONE, ignoreHTTPSErrors: false });
    const page = watchPage(await context.newPage());
    await page.goto(link);
    await page.locator('[data-connection="live"]').waitFor();
    await page.locator('[data-agent="den"]').waitFor();
    assert.equal(await page.evaluate('window.isSecureContext && location.protocol'), 'https:');
    await shots.take(page, 'https-fleet');
    await context.close();
  });

  it('a browser that does not trust the key is stopped at the certificate', async () => {
    const plain = await launchBrowser();
    try {
      const page = await (await plain.newContext({ ignoreHTTPSErrors: false })).newPage();
      await assert.rejects(page.goto(t.daemon.appUrl), /ERR_CERT_AUTHORITY_INVALID/);
    } finally {
      await plain.close();
    }
  });
});
