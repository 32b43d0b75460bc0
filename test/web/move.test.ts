// Leo Web's "Move to…" and "Copy to…" (issue 32) on a phone, against a real hub and a real host with every part of a
// move real: the hub's den moves to box, where a den already runs, so the sheet asks for another name; the app
// follows the move to den2@box and the old thread says where den went; then den2@box is copied back to the hub.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { machineName } from '../../src/hosts/host-identity.js';
import { Agent } from '../../src/wire/fleet.js';
import { MessagePage } from '../../src/wire/message.js';
import { paneText, startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { pairHost } from '../helpers/pair-host.js';
import { until } from '../helpers/wait.js';
import { launchBrowser, pairedPage, Screenshots } from './browser.js';

const CONFIG = 'templates:\n  cat: { harness: shell, command: "exec cat", chat: { enabled: true } }\n';

describe('Leo Web: moving and copying an agent between machines, on a phone', () => {
  let hub: TestDaemon;
  let box: TestDaemon;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  const shots = new Screenshots();
  const self = machineName();

  before(async () => {
    [hub, box, browser] = await Promise.all([
      startTestDaemon({ config: CONFIG }),
      startTestDaemon({ config: CONFIG }),
      launchBrowser(),
    ]);
    for (const [d, name] of [
      [hub, 'den'],
      [box, 'den'],
    ] as const)
      assert.equal((await d.op('POST', '/api/v1/agents/spawn', { template: 'cat', name })).status, 201);
    await pairHost(hub, box, 'box');
    assert.equal((await hub.op('POST', '/api/v1/chat/den/messages', { text: 'before the move' })).status, 201);
    await until('typed before the move', () => paneText(hub.home, 'den').includes('before the move'), 20_000);
    ({ context, page } = await pairedPage(browser, hub, 'phone', { mobile: true }));
  });
  after(async () => {
    await context?.close();
    await browser?.close();
    await Promise.all([hub?.stop(), box?.stop()]);
  });

  it('Move to…: the name box already holds is refused in words, a new one moves den there', async () => {
    await page.goto(`${hub.daemon.appUrl}#/a/den`);
    await page.getByRole('button', { name: 'Move to…' }).click();
    const sheet = page.locator('[data-move-sheet="move"]');
    await sheet.locator('[data-target="box"]').waitFor();
    assert.equal(await sheet.locator(`[data-target="${self}"]`).count(), 0, 'its own machine is not offered');
    await sheet.locator('[data-target="box"] input').check();
    await shots.take(page, 'move-sheet');
    await sheet.getByRole('button', { name: 'Move', exact: true }).click();
    await sheet.locator('[data-refusal="name_taken"]').waitFor();
    assert.equal(await page.evaluate('document.activeElement?.id'), 'move-as', 'the name field has the focus');
    await shots.take(page, 'move-name-taken');
    await page.locator('#move-as').fill('den2');
    await sheet.getByRole('button', { name: 'Move', exact: true }).click();
    await page.waitForURL(/#\/t\/den2%40box/, { timeout: 60_000 });
    await page.getByText('before the move').first().waitFor();
    await shots.take(page, 'move-arrived');
    assert.equal((await box.get('/api/v1/agents/den2', Agent)).status, 'running');
  });

  it('the old thread says where den went, and what is sent from the new one is typed on box', async () => {
    await page.goto(`${hub.daemon.appUrl}#/`);
    await page.locator('[data-agent="den"] .agent-status').getByText('Moved to box').waitFor();
    await shots.take(page, 'move-fleet');
    await page.goto(`${hub.daemon.appUrl}#/t/den`);
    await page.locator('[data-moved-to="den2@box"]').waitFor();
    await shots.take(page, 'move-old-thread');
    await page.locator('[data-moved-to="den2@box"] a').first().click();
    await page.waitForURL(/#\/t\/den2%40box/);
    await page.locator('.composer textarea').fill('sent after the move');
    await page.getByRole('button', { name: 'Send', exact: true }).tap();
    await until('typed on box', () => paneText(box.home, 'den2').includes('sent after the move'), 20_000);
    assert.ok(!paneText(hub.home, 'den').includes('sent after the move'));
  });

  it('Copy to… this machine: the copy runs beside its source, reached by its link', async () => {
    await page.goto(`${hub.daemon.appUrl}#/a/den2%40box`);
    await page.getByRole('button', { name: 'Copy to…' }).click();
    const sheet = page.locator('[data-move-sheet="copy"]');
    await sheet.locator(`[data-target="${self}"] input`).check();
    await page.locator('#move-as').fill('den3');
    await sheet.getByRole('button', { name: 'Copy', exact: true }).click();
    await sheet.locator('[data-move-arrived]').waitFor({ timeout: 60_000 });
    await shots.take(page, 'copy-done');
    await sheet.locator('[data-move-arrived]').click();
    await page.waitForURL(/#\/t\/den3$/);
    await page.getByText('sent after the move').first().waitFor();
    assert.equal((await box.get('/api/v1/agents/den2', Agent)).status, 'running', 'the source runs on');
    const copied = await hub.get('/api/v1/chat/den3/messages?limit=50', MessagePage);
    assert.deepEqual(
      copied.messages.filter((m) => m.kind === 'text').map((m) => m.text),
      ['before the move', 'sent after the move'],
    );
  });
});
