// Leo Web's fleet controls (issue 17) in a real browser as a paired device against the real daemon: a new agent from
// a template with a first message, then stop, start, rename and remove (with its confirmation) from its controls.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { paneText, startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import type { TurnUsage } from '../../src/wire/usage.js';
import { UsageStore } from '../../src/usage/usage-store.js';
import { until } from '../helpers/wait.js';
import { launchBrowser, pairedPage, Screenshots } from './browser.js';

const CONFIG = `templates:
  cat: { harness: shell, command: "exec cat" }
  sleeper: { harness: shell, command: "exec sleep 100000" }
  keyed: { harness: shell, command: "exec cat", environments: [staging] }
environments:
  staging: {}
  secrets: {}
`;

describe('Leo Web: fleet controls', () => {
  let t: TestDaemon;
  let browser: Browser;
  let page: Page;
  const shots = new Screenshots();
  const agent = async (name: string) => t.op('GET', `/api/v1/agents/${name}`);

  before(async () => {
    [t, browser] = await Promise.all([startTestDaemon({ config: CONFIG }), launchBrowser()]);
    ({ page } = await pairedPage(browser, t, 'phone'));
  });
  after(async () => {
    await browser?.close();
    await t?.stop();
  });

  it('the empty fleet offers New agent, not a terminal command, and it opens the spawn form', async () => {
    const empty = page.locator('.fleet-screen .empty');
    await empty.waitFor();
    assert.match(await empty.innerText(), /No agents yet/);
    assert.doesNotMatch(await empty.innerText(), /leo agent spawn/);
    await shots.take(page, 'fleet-empty');
    await empty.getByRole('link', { name: 'New agent' }).click();
    await page.locator('[data-screen="new"] #spawn-template').waitFor();
    await page.goto(`${t.daemon.appUrl}#/`);
  });

  it('starts a new agent from a template with a first message, and opens its thread', async () => {
    await page.locator('.new-link').click();
    await page.locator('[data-screen="new"]').waitFor();
    await page.locator('#spawn-template').selectOption('cat');
    await page.locator('#spawn-name').fill('ivy');
    await page.locator('.choice', { hasText: 'staging' }).locator('input').check();
    await page.locator('#spawn-prompt').fill('hello from the phone');
    await shots.take(page, 'controls-new-agent');
    await page.getByRole('button', { name: 'Start agent' }).click();
    await page.locator('[data-thread="ivy"]').waitFor();
    const r = await agent('ivy');
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(r.json.data.environments, ['staging']);
    await until(
      'the first message in the pane',
      () => paneText(t.home, 'ivy').includes('hello from the phone'),
      10_000,
    );
  });

  it("starts from the template's environments ticked and says a choice replaces them", async () => {
    await page.goto(`${t.daemon.appUrl}#/new`);
    await page.locator('#spawn-template').selectOption('keyed');
    const tick = (env: string) => page.locator('.choice', { hasText: env }).locator('input');
    assert.equal(await tick('staging').isChecked(), true, "the template's environment is ticked");
    assert.equal(await tick('secrets').isChecked(), false);
    const hint = page.locator('[data-screen="new"] .env-hint');
    assert.match(await hint.innerText(), /replaces the template's list/);
    await tick('secrets').check();
    await page.locator('#spawn-name').fill('kit');
    await shots.take(page, 'controls-new-agent-template-environments');
    await page.getByRole('button', { name: 'Start agent' }).click();
    await page.locator('[data-thread="kit"]').waitFor();
    assert.deepEqual((await agent('kit')).json.data.environments, ['staging', 'secrets']);

    // With none ticked the daemon gives the template's list (an empty list is "none of its own"): the form says so.
    await page.goto(`${t.daemon.appUrl}#/new`);
    await page.locator('#spawn-template').selectOption('keyed');
    await tick('staging').uncheck();
    assert.match(await hint.innerText(), /None ticked: the agent takes keyed's list \(staging\)/);
    await page.locator('#spawn-name').fill('kai');
    await page.getByRole('button', { name: 'Start agent' }).click();
    await page.locator('[data-thread="kai"]').waitFor();
    assert.deepEqual((await agent('kai')).json.data.environments, ['staging']);
    await page.goto(`${t.daemon.appUrl}#/new`);
    await page.locator('#spawn-template').selectOption('cat');
    assert.equal(await tick('staging').isChecked(), false, 'another template, its own list');
  });

  it("a spawn the daemon refuses shows the daemon's words", async () => {
    await page.goto(`${t.daemon.appUrl}#/new`);
    await page.locator('#spawn-template').selectOption('cat');
    await page.locator('#spawn-name').fill('ivy');
    await page.getByRole('button', { name: 'Start agent' }).click();
    const refusal = page.locator('[data-screen="new"] .form-error');
    await refusal.waitFor();
    assert.match(await refusal.innerText(), /ivy/);
  });

  it("sets an agent's emoji and colour, which the fleet shows, then gives them back to the rules", async () => {
    await page.goto(`${t.daemon.appUrl}#/a/ivy`);
    const controls = page.locator('[data-controls="ivy"]');
    await controls.getByLabel('Emoji').fill('🦊');
    await controls.getByLabel('Colour').fill('#3366cc');
    await controls.getByRole('button', { name: 'Save' }).click();
    await controls.getByRole('button', { name: 'Use the rules' }).waitFor();
    const set = (await agent('ivy')).json.data.appearance;
    assert.deepEqual([set.emoji, set.color, set.emoji_source, set.color_source], ['🦊', '#3366cc', 'manual', 'manual']);
    await shots.take(page, 'controls-appearance');
    await page.goto(`${t.daemon.appUrl}#/`);
    const card = page.locator('[data-agent="ivy"]');
    assert.equal((await card.locator('.agent-avatar').textContent())?.trim(), '🦊');
    assert.equal(
      await card.evaluate((el) =>
        (el as unknown as { style: { getPropertyValue(p: string): string } }).style.getPropertyValue('--agent-color'),
      ),
      '#3366cc',
    );

    await page.goto(`${t.daemon.appUrl}#/a/ivy`);
    await controls.getByRole('button', { name: 'Use the rules' }).click();
    await controls.getByRole('button', { name: 'Use the rules' }).waitFor({ state: 'detached' });
    assert.equal((await agent('ivy')).json.data.appearance?.emoji, undefined);
    await page.goto(`${t.daemon.appUrl}#/`);
    await card.locator('.agent-avatar', { hasText: 'I' }).waitFor();
  });

  it('shows what the agent cost today and over the last seven days, a bar per day', async () => {
    const DAY = 24 * 60 * 60 * 1000;
    const store = new UsageStore(t.daemon.db);
    const turn = (key: string, atMs: number, usage: Partial<TurnUsage>) =>
      store.record({
        agent: 'ivy',
        key,
        harness: 'claude',
        model: 'claude-sonnet-4-5',
        atMs,
        usage: {
          input_tokens: 0,
          output_tokens: 0,
          cache_read_tokens: 0,
          cache_write_tokens: 0,
          cost_usd: null,
          ...usage,
        },
      });
    const now = t.clock.now();
    turn('t1', now, { input_tokens: 1000, output_tokens: 200, cache_read_tokens: 5000, cost_usd: 0.0123 });
    turn('t2', now, { input_tokens: 2000, output_tokens: 800, cost_usd: 0.5 });
    turn('t3', now - 2 * DAY, { input_tokens: 40_000, output_tokens: 1000, cost_usd: 1.25 });
    turn('t4', now - 2 * DAY, { input_tokens: 100, output_tokens: 100 });
    await page.goto(`${t.daemon.appUrl}#/a/ivy`);
    const usage = page.locator('[data-usage="ivy"]');
    await usage.waitFor();
    const figures = await usage.locator('.usage-figure').allInnerTexts();
    assert.deepEqual(
      figures.map((f) => f.replace(/\s+/g, ' ').trim()),
      ['Today (UTC) $0.51 9K tokens · 2 turns', 'Last 7 days $1.76 50.2K tokens · 4 turns'],
    );
    const days = await usage.locator('.usage-days li').allInnerTexts();
    assert.equal(days.length, 7, 'every day listed, oldest first');
    assert.match(days.at(-1)!, /9K · \$0\.51/);
    assert.match(days.at(-3)!, /41\.2K · \$1\.25/);
    assert.match(days[0]!, /—/, 'a day without turns');
    assert.match(await usage.innerText(), /1 turn has no price/);
    await shots.take(page, 'controls-usage');

    // Another turn counted while the screen is open: its agent_usage event brings the new figures in.
    const usageOf = {
      input_tokens: 1000,
      output_tokens: 0,
      cache_read_tokens: 0,
      cache_write_tokens: 0,
      cost_usd: 0.1,
    };
    turn('t5', now, usageOf);
    t.daemon.bus.publish('agent_usage', {
      agent: 'ivy',
      harness: 'claude',
      model: 'claude-sonnet-4-5',
      turn: usageOf,
      totals: { ...usageOf, turns: 5, unpriced_turns: 1, cost_usd: 1.86 },
    });
    await usage.locator('.usage-figure', { hasText: '3 turns' }).waitFor();
    assert.match(await usage.locator('.usage-figure').first().innerText(), /\$0\.61/);
  });

  it('stops, starts, renames and removes an agent from its controls', async () => {
    await page.goto(`${t.daemon.appUrl}#/t/ivy`);
    await page.locator('.manage-link').click();
    const controls = page.locator('[data-controls="ivy"]');
    await controls.waitFor();
    await shots.take(page, 'controls-agent');
    await controls.getByRole('button', { name: 'Stop', exact: true }).click();
    await controls.locator('[data-status="stopped"]').waitFor();
    assert.equal((await agent('ivy')).json.data.status, 'stopped');
    await controls.getByRole('button', { name: 'Start', exact: true }).click();
    await controls.locator('[data-status="running"]').waitFor();

    await controls.locator('#rename').fill('oak');
    await controls.getByRole('button', { name: 'Rename' }).click();
    const renamed = page.locator('[data-controls="oak"]');
    await renamed.waitFor();
    assert.equal((await agent('oak')).status, 200);
    assert.equal((await agent('ivy')).status, 404);

    await renamed.getByRole('button', { name: 'Remove oak…' }).click();
    await renamed.locator('[role="alertdialog"]').waitFor();
    await shots.take(page, 'controls-remove-confirm');
    await renamed.getByRole('button', { name: 'Remove oak', exact: true }).click();
    await page.locator('.fleet-screen').waitFor();
    await page.waitForFunction(() => (globalThis as any).location.hash === '#/');
    assert.equal((await agent('oak')).status, 404);
    await page.locator('[data-agent="oak"]').waitFor({ state: 'detached' });
  });

  it('a device without the fleet scope sees no fleet controls; the owner grants and takes back the scope from the device list', async () => {
    const spawned = await t.op('POST', '/api/v1/agents/spawn', { template: 'cat', name: 'elm' });
    assert.equal(spawned.status, 201, spawned.text);
    const guest = await pairedPage(browser, t, 'guest tablet', { fleet: false });
    const g = guest.page;
    try {
      await g.locator('[data-agent="elm"]').waitFor();
      assert.equal(await g.locator('.new-link').count(), 0, 'no New agent in the fleet bar');

      await g.goto(`${t.daemon.appUrl}#/a/elm`);
      const controls = g.locator('[data-controls="elm"]');
      await controls.locator('[data-no-fleet]').waitFor();
      assert.match(await controls.locator('[data-no-fleet]').innerText(), /fleet scope.*guest tablet/s);
      for (const name of ['Stop', 'Start', 'Restart', 'Rename', 'Apply environments', 'Remove elm…'])
        assert.equal(await controls.getByRole('button', { name, exact: true }).count(), 0, name);
      assert.equal(await controls.locator('#rename, #template').count(), 0);
      // What every device may do stays: what it cost, its changed files, its appearance.
      await controls.getByRole('link', { name: 'Changed files' }).waitFor();
      await controls.locator('.appearance-emoji').waitFor();
      await shots.take(g, 'fleet-scope-guest-agent');

      await g.goto(`${t.daemon.appUrl}#/new`);
      await g.locator('[data-screen="new"] [data-no-fleet]').waitFor();
      assert.equal(await g.locator('#spawn-template').count(), 0, 'no spawn form');
      await shots.take(g, 'fleet-scope-guest-new');
      await g.goto(`${t.daemon.appUrl}#/settings`);
      await g.locator('[data-screen="settings"]').waitFor();
      assert.equal(await g.locator('.device-list').count(), 0, 'only a device with the scope lists the devices');

      // The owner's phone lists the devices; its own switch is locked.
      await page.goto(`${t.daemon.appUrl}#/settings`);
      const row = (name: string) => page.locator(`.device-list [data-device="${name}"] input[type="checkbox"]`);
      await row('guest tablet').waitFor();
      assert.equal(await row('phone').isChecked(), true);
      assert.equal(await row('phone').isDisabled(), true, "this device's own switch is locked");
      assert.equal(await row('guest tablet').isChecked(), false);
      await shots.take(page, 'fleet-scope-device-list');

      // Granted: the guest's app shows the controls without a reload (its stream ended; it read /me again).
      await row('guest tablet').check();
      await g.goto(`${t.daemon.appUrl}#/a/elm`);
      await controls.getByRole('button', { name: 'Stop', exact: true }).waitFor();
      assert.equal(await controls.locator('[data-no-fleet]').count(), 0);
      await g.locator('.new-link').waitFor({ state: 'attached' });
      await shots.take(g, 'fleet-scope-granted-agent');

      // Taken back: hidden again at once, and the daemon refuses what a stale screen might still send.
      await row('guest tablet').uncheck();
      await row('guest tablet').and(page.locator(':not([disabled])')).waitFor();
      await controls.locator('[data-no-fleet]').waitFor();
      assert.equal(await controls.getByRole('button', { name: 'Stop', exact: true }).count(), 0);
      assert.equal(await g.locator('.new-link').count(), 0);
      assert.equal((await agent('elm')).json.data.status, 'running');
    } finally {
      await guest.context.close();
    }
  });
});
