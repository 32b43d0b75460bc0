// Leo Web in a real browser (issue 16): Debian's chromium driven by playwright-core against the real daemon with real
// tmux agents. Pairs through the link `leo device pair` prints, watches the fleet follow the event stream, checks the
// page's Content-Security-Policy holds, and sees the app say so when its device is revoked.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { runLeoAsync } from '../helpers/cli.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { request } from '../helpers/http.js';
import { launchBrowser, PHONE, Screenshots, watchPage } from './browser.js';

/** What the app keeps in IndexedDB (src/web/api/idb.ts), read from inside the page. */
const READ_TOKEN = `new Promise((resolve, reject) => {
  const req = indexedDB.open('leo');
  req.onerror = () => reject(req.error);
  req.onsuccess = () => {
    const get = req.result.transaction('auth').objectStore('auth').get('device-token');
    get.onsuccess = () => resolve(get.result ?? null);
    get.onerror = () => reject(get.error);
  };
})`;

const CONFIG = 'templates:\n  cat: { harness: shell, command: "exec cat" }\n';

describe('Leo Web: pairing, the live fleet, CSP, revocation', () => {
  let t: TestDaemon;
  let env: NodeJS.ProcessEnv;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  const shots = new Screenshots();
  const spawn = async (name: string) => {
    const r = await t.op('POST', '/api/v1/agents/spawn', { template: 'cat', name });
    assert.equal(r.status, 201, r.text);
  };
  const card = (name: string) => page.locator(`[data-agent="${name}"]`);

  before(async () => {
    [t, browser] = await Promise.all([startTestDaemon({ config: CONFIG }), launchBrowser()]);
    env = { ...process.env, LEO_HOME: t.home, LEO_USER_HOME: t.home };
    await Promise.all([spawn('assistant'), spawn('den')]);
    context = await browser.newContext({ viewport: PHONE });
    page = watchPage(await context.newPage());
  });
  after(async () => {
    await browser?.close();
    await t?.stop();
  });

  it('an unpaired browser is told how to pair', async () => {
    await page.goto(t.daemon.appUrl);
    await page.locator('[data-screen="unpaired"]').waitFor();
    await shots.take(page, 'unpaired');
  });

  it('the link `leo device pair` prints pairs the browser, leaves no code in the address bar, and shows the fleet', async () => {
    const printed = await runLeoAsync(['device', 'pair', 'phone'], env);
    assert.equal(printed.status, 0, printed.stderr);
    const link = /(http:\/\/\S+#pair=\S+)/.exec(printed.stdout)?.[1];
    assert.ok(link, printed.stdout);
    assert.match(printed.stdout, /[█▀▄]{10}/, 'a QR code is drawn in the terminal');
    assert.equal(new URL(link).origin + '/', t.daemon.appUrl);

    await page.goto(link);
    await card('den').waitFor();
    await page.locator('[data-connection="live"]').waitFor();
    assert.equal(page.url(), t.daemon.appUrl, 'the fragment is gone');
    assert.equal(await page.evaluate('location.hash'), '');
    // The assistant is pinned first.
    assert.deepEqual(
      await page.locator('[data-agent]').evaluateAll((els) => els.map((e) => e.getAttribute('data-agent'))),
      ['assistant', 'den'],
    );
    const devices = await t.op('GET', '/api/v1/devices');
    assert.deepEqual(
      devices.json.data.map((d: { name: string }) => d.name),
      ['phone'],
    );
    // The device token is in IndexedDB, and nowhere on the page or in its address.
    const stored = (await page.evaluate(READ_TOKEN)) as string;
    assert.match(stored, /^leo_dev_/);
    assert.equal((await page.content()).includes(stored), false);

    // The link was single use: opening it again pairs nothing more.
    const again = await request(t.tcp, 'POST', '/api/v1/pair', { body: { code: new URL(link).hash.slice(6) } });
    assert.equal(again.status, 401, again.text);
  });

  it('an agent spawned after load appears live, and its status, appearance and unread count follow events', async () => {
    await spawn('ivy');
    await card('ivy').waitFor();
    await page.locator('[data-agent="ivy"][data-status="running"]').waitFor();

    assert.equal((await t.op('PUT', '/api/v1/agents/ivy/appearance', { emoji: '🦊', color: 'teal' })).status, 200);
    await page.locator('[data-agent="ivy"] .agent-avatar', { hasText: '🦊' }).waitFor();

    const posted = await request(t.tcp, 'POST', '/api/agent/den/chat/post', {
      token: t.daemon.agentToken,
      body: { text: 'hello owner' },
    });
    assert.equal(posted.status, 200, posted.text);
    await page.locator('[data-agent="den"] [data-unread="1"]').waitFor();

    // current_action is untrusted pane text: shown as text, never as markup. (Published on the daemon's bus as the
    // activity sweeper does: the test clock does not run the sweeper.)
    const detail = '<img src=x onerror="window.__pwned=1"> running <b>tests</b>';
    t.daemon.bus.publish('agent_activity', {
      agent: 'den',
      activity: 'working',
      current_action: { kind: 'pane', detail },
      last_activity_at: new Date().toISOString(),
    });
    const action = page.locator('[data-agent="den"] .agent-action');
    await action.waitFor();
    assert.equal(await action.textContent(), detail);
    assert.equal(await action.locator('img, b').count(), 0);
    assert.equal(await page.evaluate('window.__pwned === undefined'), true);

    assert.equal((await t.op('POST', '/api/v1/agents/ivy/stop')).status, 200);
    await page.locator('[data-agent="ivy"][data-status="stopped"]').waitFor();
    await shots.take(page, 'fleet');
  });

  it('offline shows on the indicator; back online it reconnects and refetches what it missed; a dropped stream reconnects', async () => {
    // The stop above makes the app refetch the snapshot a moment later (a bare agent_stopped may be a deletion); let
    // that settle, so only the reconnect's own refetch can bring what follows.
    await page.waitForTimeout(1000);
    await context.setOffline(true);
    await page.locator('[data-connection="offline"]').waitFor();
    // Spawned while the browser cannot hear: only the snapshot refetched on reconnect can show it.
    await spawn('zed');
    assert.equal(await card('zed').count(), 0);
    const refetched = page.waitForRequest((r) => r.url().endsWith('/api/v1/state'));
    await context.setOffline(false);
    await refetched;
    await page.locator('[data-connection="live"]').waitFor();
    await card('zed').waitFor();

    t.daemon.hub.closeAll();
    await page.locator('[data-connection="reconnecting"]').waitFor();
    await page.locator('[data-connection="live"]').waitFor();
    await page.locator('[data-connection="reconnecting"]').waitFor({ state: 'detached' });
  });

  it('while reconnects back off, the page becoming visible again reconnects at once', async () => {
    // Every attempt fails until the backoff has grown to 5 s; then the stream would work again.
    await page.route('**/api/v1/events', (route) => route.abort());
    t.daemon.hub.closeAll();
    await page.locator('[data-connection="reconnecting"]').waitFor();
    await page.waitForTimeout(3700);
    await page.unroute('**/api/v1/events');
    // A Playwright page is always visible: make it hidden and visible again as a phone does when it is picked up.
    await page.evaluate(`(() => {
      Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => 'hidden' });
      document.dispatchEvent(new Event('visibilitychange'));
      Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => 'visible' });
      document.dispatchEvent(new Event('visibilitychange'));
    })()`);
    await page.locator('[data-connection="live"]').waitFor({ timeout: 1500 });
  });

  it("`leo open`'s link pairs another browser in one click", async () => {
    const printed = await runLeoAsync(['open', '--no-browser'], env);
    assert.equal(printed.status, 0, printed.stderr);
    const link = /(http:\/\/\S+#pair=\S+)/.exec(printed.stdout)?.[1];
    assert.ok(link, printed.stdout);
    const other = await browser.newContext({ viewport: PHONE });
    try {
      const p = await other.newPage();
      await p.goto(link);
      await p.locator('[data-agent="den"]').waitFor();
      assert.equal(p.url(), t.daemon.appUrl);
    } finally {
      await other.close();
    }
  });

  it('the app document carries a strict CSP, and the browser refuses an injected inline script', async () => {
    const res = await request(t.tcp, 'GET', '/');
    assert.equal(res.status, 200);
    assert.match(String(res.headers['content-security-policy']), /script-src 'self';/);
    assert.equal(res.headers['cache-control'], 'no-cache');
    // Page code is passed as text: this file is compiled for node, without the DOM's types.
    const refused = await page.evaluate(`new Promise((resolve) => {
      let violated = null;
      document.addEventListener('securitypolicyviolation', (e) => (violated = e.violatedDirective));
      const s = document.createElement('script');
      s.textContent = 'window.__inlineRan = true';
      document.body.append(s);
      setTimeout(() => resolve({ ran: window.__inlineRan === true, violated }), 200);
    })`);
    assert.deepEqual(refused, { ran: false, violated: 'script-src-elem' });
  });

  it('revoking the device shows the unpaired screen at the next request, and forgets the token', async () => {
    const revoked = await runLeoAsync(['device', 'revoke', 'phone'], env);
    assert.equal(revoked.status, 0, revoked.stderr);
    await page.reload();
    await page.locator('[data-screen="revoked"]').waitFor();
    await page.getByText('This device was unpaired').waitFor();
    const left = await page.evaluate(READ_TOKEN);
    assert.equal(left, null);
    await shots.take(page, 'revoked');
  });
});
