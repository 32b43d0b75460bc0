// The empty fleet (issue 27): a new user is pointed to the app's own New agent, not told to open a terminal.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { launchBrowser, pairedPage, Screenshots } from './browser.js';

const CONFIG = `templates:
  cat: { harness: shell, command: "exec cat" }
`;

describe('Leo Web: the empty fleet', () => {
  let t: TestDaemon;
  let browser: Browser;
  let page: Page;
  const shots = new Screenshots();

  before(async () => {
    [t, browser] = await Promise.all([startTestDaemon({ config: CONFIG }), launchBrowser()]);
    ({ page } = await pairedPage(browser, t, 'phone'));
  });
  after(async () => {
    await browser?.close();
    await t?.stop();
  });

  it('offers New agent, which opens the spawn form', async () => {
    const empty = page.locator('.fleet-screen .empty');
    await empty.waitFor();
    assert.match(await empty.innerText(), /No agents yet/);
    assert.doesNotMatch(await empty.innerText(), /leo agent spawn/, 'no terminal command for a new user');
    await shots.take(page, 'fleet-empty');
    await empty.getByRole('link', { name: 'New agent' }).click();
    await page.locator('[data-screen="new"] #spawn-template').waitFor();
  });
});
