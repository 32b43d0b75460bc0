// Leo Web after a daemon restart (issue 27): the daemon stopped and started again on the same port, the app is back
// live within seconds of its return — it used to wait out a backoff that had grown to 30 s, up to 45 s in all.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Browser, Page } from 'playwright-core';
import { ManualClock } from '../../src/core/clock.js';
import { createLogger } from '../../src/core/logger.js';
import { startDaemon, type Daemon } from '../../src/daemon/daemon.js';
import { killTmuxServer, type TestDaemon } from '../helpers/daemon.js';
import { freePort } from '../helpers/free-port.js';
import { endProcessesIn } from '../helpers/strays.js';
import { makeTempHome, testConfig } from '../helpers/temp-home.js';
import { backoffMs } from '../../src/web/stores/backoff.js';
import { launchBrowser, pairedPage, Screenshots } from './browser.js';

describe('Leo Web: a daemon restart', () => {
  let home: ReturnType<typeof makeTempHome>;
  let daemon: Daemon | null = null;
  let browser: Browser;
  let page: Page;
  let appUrl: string;
  const shots = new Screenshots();
  const start = async () =>
    (daemon = await startDaemon({ env: home.env, clock: new ManualClock(Date.now()), logger: createLogger('warn') }));

  before(async () => {
    const port = await freePort();
    home = makeTempHome(testConfig().replace('listen: 127.0.0.1:0', `listen: 127.0.0.1:${port}`));
    [, browser] = await Promise.all([start(), launchBrowser()]);
    const t = { daemon: daemon!, tcp: { port } } as TestDaemon;
    appUrl = daemon!.appUrl;
    ({ page } = await pairedPage(browser, t, 'phone'));
  });
  after(async () => {
    await browser?.close();
    await daemon?.close();
    killTmuxServer(home.home);
    await endProcessesIn(home.home);
    home.cleanup();
  });

  it('retries within 5 s (±25 %), whatever the number of failures', () => {
    assert.deepEqual(
      [0, 1, 2, 3, 10, 100].map((n) => backoffMs(n, () => 0.5)),
      [500, 1000, 2000, 5000, 5000, 5000],
    );
    assert.equal(
      backoffMs(50, () => 0),
      3750,
    );
    assert.equal(
      backoffMs(50, () => 1),
      6250,
    );
  });

  it("while reconnecting, a phone's thread header shows a long agent name, the badge only its dot", async () => {
    const name = 'hermes-refactoring-the-billing-module';
    // The stream refused from now on, and the open one dropped: the app says Reconnecting…
    await page.route('**/api/v1/events', (r) => r.abort());
    await page.context().setOffline(true);
    await page.context().setOffline(false);
    await page.goto(`${appUrl}#/t/${name}`);
    const bar = page.locator(`[data-thread="${name}"] .bar`);
    await bar.locator('[data-connection="reconnecting"]').waitFor();
    const width = await bar.locator('h1').evaluate((h: any) => h.getBoundingClientRect().width);
    console.log(`# the name is ${Math.round(width)} px wide at 390 px`);
    assert.ok(width >= 100, `the name has ${width} px`);
    assert.equal(await bar.locator('[data-connection="reconnecting"]').getAttribute('role'), 'status');
    assert.match(await bar.locator('.conn').innerText(), /Reconnecting/, 'its words stay for screen readers');
    await shots.take(page, 'thread-header-reconnecting');
    await page.unroute('**/api/v1/events');
    await page.goto(`${appUrl}#/`);
    await page.locator('[data-connection="live"]:visible').waitFor({ timeout: 15_000 });
  });

  it('comes back live within seconds of the daemon returning after 20 s away', async () => {
    await daemon!.close();
    daemon = null;
    await page.locator('[data-connection="reconnecting"]:visible').waitFor({ timeout: 10_000 });
    await shots.take(page, 'reconnecting');
    // Long enough for the old backoff to reach its 30 s step.
    await sleep(20_000);
    await start();
    const back = Date.now();
    await page.locator('[data-connection="live"]:visible').waitFor({ timeout: 30_000 });
    const took = Date.now() - back;
    console.log(`# live again ${took} ms after the daemon's return`);
    assert.ok(took < 10_000, `back after ${took} ms`);
  });
});
