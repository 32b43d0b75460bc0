// Leo Web on a hub (issue 31): a hub and a host, two real daemons on loopback; the phone paired with the hub sees one
// fleet grouped by machine with a badge per host; the host stopped goes offline in the app and its agents grey with
// their actions disabled; restarted, it is online again and a thread open meanwhile has what the host stored while the
// hub could not hear it; the Settings screen removes it and pairs it again from a pasted join link.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { HostInvite } from '../../src/wire/host.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { freePort } from '../helpers/free-port.js';
import { advanceHubUntil } from '../helpers/hub-clock.js';
import { pairHost } from '../helpers/pair-host.js';
import { agentPost, launchBrowser, pairedPage, Screenshots } from './browser.js';

const CONFIG = 'templates:\n  cat: { harness: shell, command: "exec cat" }\n';

describe('Leo Web: one fleet across a hub and a host', () => {
  let host: TestDaemon;
  let hub: TestDaemon;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  const shots = new Screenshots();
  const group = (name: string) => page.locator(`[data-host-group="${name}"]`);
  const badge = () => group('box').locator('.host-head [data-host-status]');

  before(async () => {
    // A fixed port: the host restarts where the hub's client.hosts says it is.
    [host, hub, browser] = await Promise.all([
      freePort().then((port) => startTestDaemon({ config: CONFIG, web: `  listen: 127.0.0.1:${port}\n` })),
      startTestDaemon({ config: CONFIG }),
      launchBrowser(),
    ]);
    assert.equal((await host.op('POST', '/api/v1/agents/spawn', { template: 'cat', name: 'den' })).status, 201);
    assert.equal((await hub.op('POST', '/api/v1/agents/spawn', { template: 'cat', name: 'home' })).status, 201);
    await pairHost(hub, host, 'box');
    ({ context, page } = await pairedPage(browser, hub, 'phone', { mobile: true }));
  });
  after(async () => {
    await context?.close();
    await browser?.close();
    await Promise.all([hub?.stop(), host?.stop()]);
  });

  it('at phone size the fleet shows this machine, then the host, each with its agents and the host its badge', async () => {
    await group('box').locator('[data-agent="den@box"]').waitFor();
    await group('').locator('[data-agent="home"]').waitFor();
    assert.equal(await group('').locator('.host-head').innerText(), 'This machine');
    await badge().and(page.locator('[data-host-status="online"]')).waitFor();
    assert.equal(await badge().innerText(), 'online');
    const order = await page.locator('[data-host-group]').evaluateAll((els) => els.map((e) => e.dataset.hostGroup));
    assert.deepEqual(order, ['', 'box']);
    assert.equal(await page.locator('[data-agent="den@box"][data-unreachable]').count(), 0);
    await shots.take(page, 'hosts-fleet');

    // The filter keeps one machine.
    await page.locator('[data-host-filter]').selectOption('box');
    await group('').waitFor({ state: 'detached' });
    assert.equal(await group('box').count(), 1);
    await page.locator('[data-host-filter]').selectOption('*');
    await group('').waitFor();
  });

  it("the host's agent reads 'den · box' in its thread header", async () => {
    await page.locator('[data-agent="den@box"] .agent-link').click();
    const title = page.locator('[data-thread="den@box"] .bar h1');
    await title.waitFor();
    assert.equal(await title.innerText(), 'den · box');
    assert.equal(await page.locator('[data-thread="den@box"] .term-toggle').isEnabled(), true);
    await page.goto(`${hub.daemon.appUrl}#/`);
    await group('box').waitFor();
  });

  it('the host stopped → its badge goes offline, its agents grey with their actions disabled and why', async () => {
    await host.daemon.close();
    await advanceHubUntil(
      hub,
      'box offline in the app',
      async () => (await badge().getAttribute('data-host-status')) === 'offline',
      { stepMs: 1_000, timeoutMs: 30_000, everyMs: 250 },
    );
    assert.match(await badge().innerText(), /^offline · last seen \d/);
    assert.match((await badge().getAttribute('title')) ?? '', /ended its event stream|ECONNREFUSED|refused/);
    // The reason is a tap away.
    await badge().click();
    assert.equal(await group('box').locator('[data-host-error]').innerText(), await badge().getAttribute('title'));
    const den = page.locator('[data-agent="den@box"]');
    await den.and(page.locator('[data-unreachable]')).waitFor();
    assert.match(await den.locator('.agent-host-down').innerText(), /^box is offline since .+ · last known state$/);
    assert.equal(await den.getAttribute('data-status'), 'running', 'its last known state');
    const filter = await den.evaluate((e) => (globalThis as any).getComputedStyle(e).filter);
    assert.match(filter, /grayscale/);
    assert.equal(await page.locator('[data-agent="home"][data-unreachable]').count(), 0);
    await shots.take(page, 'hosts-offline');

    await den.locator('.agent-link').click();
    const thread = page.locator('[data-thread="den@box"]');
    await thread.locator('[data-host-down]').waitFor();
    assert.match(await thread.locator('[data-host-down]').innerText(), /^box is offline since .+: what you send waits/);
    assert.equal(await thread.locator('.term-toggle').isDisabled(), true);
    assert.match((await thread.locator('.term-toggle').getAttribute('title')) ?? '', /^box is offline/);
    await shots.take(page, 'hosts-offline-thread');

    await thread.locator('.manage-link').click();
    const controls = page.locator('[data-controls="den@box"]');
    await controls.locator('[data-host-down]').waitFor();
    for (const name of ['Stop', 'Restart'])
      assert.equal(await controls.getByRole('button', { name, exact: true }).isDisabled(), true, name);
    assert.equal(await controls.getByRole('button', { name: /^Remove/ }).isDisabled(), true);
    await page.goto(`${hub.daemon.appUrl}#/`);
    await group('box').waitFor();
  });

  it('restarted → online again, its agents no longer greyed; its open thread has what was posted meanwhile, once', async () => {
    await page.locator('[data-agent="den@box"] .agent-link').click();
    const thread = page.locator('[data-thread="den@box"]');
    await thread.locator('[data-host-down]').waitFor();
    await host.restart();
    // The hub's follower retries on its own clock, which stands still here: these reach the hub by no event.
    const posted = [await agentPost(host, 'den', 'while away 1'), await agentPost(host, 'den', 'while away 2')];
    await advanceHubUntil(
      hub,
      'box online in the open thread',
      async () => (await thread.locator('[data-host-down]').count()) === 0,
      { stepMs: 2_000, timeoutMs: 30_000, everyMs: 250 },
    );
    for (const id of posted) await thread.locator(`.msg[data-id="${id}"]`).waitFor();
    const shown = await thread.locator('.msg[data-id]').evaluateAll((els) => els.map((e) => e.dataset.id));
    assert.deepEqual(
      shown.filter((id) => posted.includes(id!)),
      posted,
      'each once, in order',
    );
    await page.goto(`${hub.daemon.appUrl}#/`);
    await badge().and(page.locator('[data-host-status="online"]')).waitFor();
    await page.locator('[data-agent="den@box"]:not([data-unreachable])').waitFor();
    await shots.take(page, 'hosts-back');
  });

  it('Settings lists the host; removing it drops its group; a pasted join link pairs it again', async () => {
    await page.goto(`${hub.daemon.appUrl}#/settings`);
    const section = page.locator('[data-hosts-settings]');
    await section.locator('[data-host="box"]').waitFor();

    // A link that is no join link: the daemon's refusal in its words, nothing paired.
    await section.getByLabel('Name for it here').fill('attic');
    await section.getByLabel('Join link').fill('http://127.0.0.1:9/#join=forged');
    await section.getByRole('button', { name: 'Pair machine' }).click();
    await section.locator('[data-hosts-error]').waitFor();
    assert.equal(await section.locator('[data-host="attic"]').count(), 0);

    await section.locator('[data-host="box"]').getByRole('button', { name: 'Remove…' }).click();
    await shots.take(page, 'hosts-settings-confirm');
    await section.locator('[data-host="box"]').getByRole('button', { name: 'Remove box' }).click();
    await section.locator('[data-host="box"]').waitFor({ state: 'detached' });
    assert.match(await section.locator('[data-hosts-said]').innerText(), /^Removed box/);
    await page.goto(`${hub.daemon.appUrl}#/`);
    await page.locator('[data-agent="home"]').waitFor();
    await page.locator('[data-agent="den@box"]').waitFor({ state: 'detached' });

    const invite = await host.op('POST', '/api/v1/host/invites', { hub: 'hub' });
    assert.equal(invite.status, 201, invite.text);
    await page.goto(`${hub.daemon.appUrl}#/settings`);
    await section.getByLabel('Name for it here').fill('box');
    await section.getByLabel('Join link').fill(HostInvite.parse(invite.json.data).link);
    await section.getByRole('button', { name: 'Pair machine' }).click();
    await section.locator('[data-host="box"]').waitFor();
    assert.match(await section.locator('[data-hosts-said]').innerText(), /^Paired box/);
    await shots.take(page, 'hosts-settings');
    await page.goto(`${hub.daemon.appUrl}#/`);
    await group('box').locator('[data-agent="den@box"]').waitFor();
  });
});
