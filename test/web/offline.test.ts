// Leo Web opens offline (issue 34): the service worker serves the shell from its cache, the app shows the last known
// fleet, thread and open card from IndexedDB with the offline badge, a message typed offline waits in the outbox and
// goes once when the network returns, with what happened meanwhile; a new build's worker is offered, not swapped in.
// Playwright's setOffline applies to the service worker's own fetches too (playwright-core attaches to worker
// targets unless service workers are blocked), so the reload below is served by the cache or not at all.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { brotliCompressSync, gzipSync } from 'node:zlib';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { WEB_ROOT } from '../../src/http/web-routes.js';
import { MessagePage } from '../../src/wire/message.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { agentAsk, agentPost, launchBrowser, pairedPage, Screenshots } from './browser.js';

const CONFIG = 'templates:\n  cat: { harness: shell, command: "exec cat" }\n';
/** A person reads what is on screen before acting. */
const PACE_MS = 1000;

/** Page-side: one value of the app's `last-known` IndexedDB store (stores/last-known.ts), as JSON, or null. */
function lastKnown(page: Page, key: string): Promise<string | null> {
  return page.evaluate(
    (key) =>
      new Promise<string | null>((resolve) => {
        const req = (globalThis as any).indexedDB.open('leo');
        req.onsuccess = () => {
          const db = req.result;
          if (!db.objectStoreNames.contains('last-known')) return resolve(null);
          const get = db.transaction('last-known').objectStore('last-known').get(key);
          get.onsuccess = () => resolve(get.result === undefined ? null : JSON.stringify(get.result));
        };
      }),
    key,
  );
}

async function until(what: string, check: () => Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('Leo Web: opening offline', () => {
  let t: TestDaemon;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let webRoot: string;
  const shots = new Screenshots();
  const cspViolations: string[] = [];
  /** Any /api response the service worker answered: none may be. */
  const fromCache: string[] = [];
  const thread = () => page.locator('[data-thread="den"]');
  const stored = async () => (await t.get('/api/v1/chat/den/messages?limit=200', MessagePage)).messages;
  const controlled = () =>
    page.evaluate(() => Boolean((globalThis as any).navigator.serviceWorker.controller)).catch(() => false);

  before(async () => {
    // A copy of the build, so the last test can serve a new version of it without touching the one other tests use.
    webRoot = fs.mkdtempSync(path.join(os.tmpdir(), 'leo-web-copy-'));
    fs.cpSync(WEB_ROOT, webRoot, { recursive: true });
    [t, browser] = await Promise.all([startTestDaemon({ config: CONFIG, webRoot }), launchBrowser()]);
    for (const name of ['den', 'ivy'])
      assert.equal((await t.op('POST', '/api/v1/agents/spawn', { template: 'cat', name })).status, 201);
    ({ context, page } = await pairedPage(browser, t, 'phone'));
    page.on('console', (m) => /Content.Security.Policy/i.test(m.text()) && cspViolations.push(m.text()));
    page.on(
      'response',
      (r) => new URL(r.url()).pathname.startsWith('/api/') && r.fromServiceWorker() && fromCache.push(r.url()),
    );
  });
  after(async () => {
    await browser?.close();
    await t?.stop();
    if (webRoot) fs.rmSync(webRoot, { recursive: true, force: true });
  });

  it('the service worker is served no-cache under the CSP, and takes the page over', async () => {
    const sw = await fetch(`${t.daemon.appUrl}sw.js`);
    assert.equal(sw.headers.get('cache-control'), 'no-cache');
    assert.match(String(sw.headers.get('content-security-policy')), /worker-src 'self'/);
    assert.match(await sw.text(), /^const SHELL_VERSION = "[0-9a-f]{16}";$/m);
    await until('the service worker to control the page', controlled);
    const worker = context.serviceWorkers()[0]!;
    console.log(
      `# static routing (/api never wakes the worker): ${await worker.evaluate(() => 'addRoutes' in (globalThis as any).InstallEvent.prototype)}`,
    );
  });

  it('reloaded with no network: the fleet, the thread and its open card, with the offline badge', async () => {
    await agentPost(t, 'den', 'Built the **release** notes.');
    // An ask held open: its card stays open through the offline spell.
    agentAsk(t, 'den', { question: 'Ship it tonight?', options: [{ value: 'yes', label: 'Yes' }] }).catch(() => {});
    await page.goto(`${t.daemon.appUrl}#/t/den`);
    await thread().locator('.action-card', { hasText: 'Ship it tonight?' }).waitFor();
    await thread().locator('.msg-out', { hasText: 'Built the release notes.' }).waitFor();
    // What the app keeps for opening offline is written a moment after it changes.
    await until(
      'the thread to be kept',
      async () => (await lastKnown(page, 'thread:den'))?.includes('Ship it') ?? false,
    );
    await until('the fleet to be kept', async () => (await lastKnown(page, 'fleet'))?.includes('Ship it') ?? false);

    await context.setOffline(true);
    const doc = await page.reload();
    assert.equal(doc?.fromServiceWorker(), true, 'the document came from the shell cache');
    await page.locator('[data-connection="offline"]:visible').waitFor();
    await thread().locator('.action-card', { hasText: 'Ship it tonight?' }).waitFor();
    // The markdown chunk came from the cache too: the agent's message is rendered, not plain.
    await thread().locator('.msg-out strong', { hasText: 'release' }).waitFor();
    assert.equal(await thread().locator('.empty.error').count(), 0, 'no network error in place of the thread');
    assert.equal(await page.locator('[data-update-prompt]').count(), 0, 'the first install is no new version');
    assert.equal(await page.evaluate(() => (globalThis as any).navigator.onLine), false);
    assert.match(await thread().locator('[data-offline-note]').innerText(), /Offline: showing what Leo last sent/);
    await shots.take(page, 'offline-thread');

    await page.goto(`${t.daemon.appUrl}#/`);
    await page.locator('[data-agent="den"]').waitFor();
    await page.locator('.inbox-link .badge', { hasText: '1' }).waitFor();
    await page.locator('[data-connection="offline"]:visible').waitFor();
    await shots.take(page, 'offline-fleet');
    // A thread never opened here has nothing kept: it says so, not the network's raw error.
    await page.goto(`${t.daemon.appUrl}#/t/ivy`);
    const why = page.locator('[data-thread="ivy"] .empty.error');
    await why.waitFor();
    assert.equal(await why.innerText(), 'Leo cannot be reached, and this thread is not kept on this device yet.');
  });

  it('a message typed offline waits, then goes once with what happened meanwhile when the network returns', async () => {
    await page.goto(`${t.daemon.appUrl}#/t/den`);
    await thread().locator('.action-card', { hasText: 'Ship it tonight?' }).waitFor();
    await page.waitForTimeout(PACE_MS);
    await thread().locator('.composer textarea').fill('typed in the tunnel');
    await page.getByRole('button', { name: 'Send' }).click();
    const waiting = thread().locator('.msg-outbox', { hasText: 'typed in the tunnel' });
    await waiting.locator('.msg-state', { hasText: 'Waiting to send' }).waitFor();
    await shots.take(page, 'offline-queued');
    // The agent goes on while the phone is away.
    await agentPost(t, 'den', 'Tagged v2 while you were away.');
    await page.waitForTimeout(PACE_MS);
    assert.equal((await stored()).filter((m) => m.text === 'typed in the tunnel').length, 0, 'nothing sent offline');

    await context.setOffline(false);
    await page.locator('[data-connection="live"]:visible').waitFor({ timeout: 20_000 });
    await thread().locator('.msg-out', { hasText: 'Tagged v2 while you were away.' }).waitFor();
    await thread().locator('.messages .msg-in', { hasText: 'typed in the tunnel' }).waitFor();
    await waiting.waitFor({ state: 'detached' });
    await page.waitForTimeout(PACE_MS);
    const sent = (await stored()).filter((m) => m.text === 'typed in the tunnel');
    assert.equal(sent.length, 1, `stored once: ${JSON.stringify(sent)}`);
    assert.equal(await thread().locator('.msg-in', { hasText: 'typed in the tunnel' }).count(), 1, 'shown once');
    assert.equal(await thread().locator('.msg-out', { hasText: 'Tagged v2' }).count(), 1);
    assert.equal(await page.locator('[data-connection="offline"]').count(), 0, 'the offline badge is gone');
    assert.equal(await page.locator('[data-offline-note]').count(), 0, 'and its note');
    // The stream is back: what the agent says now comes live.
    await agentPost(t, 'den', 'Back with you.');
    await thread().locator('.msg-out', { hasText: 'Back with you.' }).waitFor();
  });

  it('a new build is offered as "New version — Reload", never swapped under a page in use', async () => {
    // Gone with the page, if anything reloads it.
    const marked = () => page.evaluate(() => (globalThis as any).leoTestMark === 1);
    await page.evaluate(() => ((globalThis as any).leoTestMark = 1));
    const before = await page.evaluate(() => (globalThis as any).caches.keys());
    assert.equal(before.length, 1, `one shell cached: ${before}`);
    // The daemon now serves another build: its worker differs (as any rebuild's does, by its version).
    const file = path.join(webRoot, 'sw.js');
    const next = fs
      .readFileSync(file, 'utf8')
      .replace(/SHELL_VERSION = "[0-9a-f]+"/, 'SHELL_VERSION = "0123456789abcdef"');
    fs.writeFileSync(file, next);
    fs.writeFileSync(`${file}.gz`, gzipSync(next));
    fs.writeFileSync(`${file}.br`, brotliCompressSync(next));
    // The stream comes back (as after the daemon's upgrade): the app asks whether its worker changed.
    await context.setOffline(true);
    await page.locator('[data-connection="offline"]:visible').waitFor();
    await context.setOffline(false);
    const prompt = page.locator('[data-update-prompt]');
    await prompt.waitFor({ timeout: 20_000 });
    assert.match(await prompt.innerText(), /New version\s*Reload/);
    await page.waitForTimeout(PACE_MS);
    assert.equal(await marked(), true, 'the page in use was not reloaded');
    await shots.take(page, 'update-prompt');

    await prompt.getByRole('button', { name: 'Reload' }).click();
    await until('the page to reload', async () => !(await marked().catch(() => true)));
    await page.locator('[data-connection="live"]:visible').waitFor();
    assert.equal(await prompt.count(), 0);
    await until('the old shell to be dropped', async () => {
      const keys: string[] = await page.evaluate(() => (globalThis as any).caches.keys());
      return keys.length === 1 && keys[0] === 'leo-shell-0123456789abcdef';
    });
    assert.deepEqual(cspViolations, [], 'no Content-Security-Policy violation');
    assert.deepEqual(fromCache, [], 'no /api response came from the service worker');
  });
});
