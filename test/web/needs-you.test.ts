// The fleet says "needs you" while an agent waits on its owner (issue 27): a permission prompt from the real
// `leo hook permission-request` marks that agent's card, and answering it in its thread clears the mark.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { request } from '../helpers/http.js';
import { launchBrowser, pairedPage, permissionRequest, Screenshots } from './browser.js';

const CONFIG = 'templates:\n  cat: { harness: shell, command: "exec cat" }\n';

describe('Leo Web: the fleet card says "needs you" while a prompt is open', () => {
  let t: TestDaemon;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  const shots = new Screenshots();
  const activity = (name: string) => page.locator(`[data-agent="${name}"] .agent-activity`);

  before(async () => {
    [t, browser] = await Promise.all([startTestDaemon({ config: CONFIG }), launchBrowser()]);
    for (const name of ['den', 'ivy'])
      assert.equal(
        (
          await request(t.tcp, 'POST', '/api/v1/agents/spawn', {
            token: t.daemon.operatorToken,
            body: { template: 'cat', name },
          })
        ).status,
        201,
      );
    ({ context, page } = await pairedPage(browser, t, 'phone'));
    await page.locator('[data-agent="den"]').waitFor();
  });
  after(async () => {
    await context?.close();
    await browser?.close();
    await t?.stop();
  });

  it('an open permission prompt → "needs you" on that agent only; answered → no longer', async () => {
    const held = permissionRequest(t, 'den', 'make deploy');
    await page.locator('[data-agent="den"].activity-needs-you').waitFor();
    assert.equal(await activity('den').innerText(), 'needs you');
    assert.equal(await page.locator('[data-agent="ivy"].activity-needs-you').count(), 0);
    await shots.take(page, 'fleet-needs-you');

    await page.waitForTimeout(1500);
    await page.locator('[data-agent="den"] .agent-link').click();
    const allow = page.locator('[data-thread="den"] .action-card', { hasText: 'make deploy' }).getByRole('button', {
      name: 'Allow',
    });
    await allow.waitFor();
    await page.waitForTimeout(1500);
    await allow.click();
    assert.match(await held, /allow/);
    await page.goto(t.daemon.appUrl);
    await page.locator('[data-agent="den"]').waitFor();
    await page.locator('[data-agent="den"].activity-needs-you').waitFor({ state: 'detached' });
    const shown = (await activity('den').count()) ? await activity('den').innerText() : '';
    assert.notEqual(shown, 'needs you');
    await shots.take(page, 'fleet-answered');
  });
});
