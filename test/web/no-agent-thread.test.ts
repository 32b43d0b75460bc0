// A task's failure card posted to the default owner `assistant` when no agent of that name exists (`leo init` creates
// none), produced the real way: a oneshot shell task that fails, run through the API. The fleet lists the thread
// with its unread badge, and the thread offers no composer or terminal but says why, with a spawn prefilled.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { until } from '../helpers/wait.js';
import { launchBrowser, pairedPage, Screenshots } from './browser.js';
import { StateSnapshot } from '../../src/wire/fleet.js';

const config = (workspace: string) => `templates:
  cat: { harness: shell, command: "exec cat" }
tasks:
  nightly:
    schedule: "0 0 1 1 *"
    harness: shell
    workspace: ${JSON.stringify(workspace)}
    command: 'echo "tests: 2 failed" >&2; exit 3'
    prompt: run the nightly checks
    notify_on_fail: true
`;

describe('Leo Web: a thread with no agent (task cards to an assistant never spawned)', () => {
  let t: TestDaemon;
  let browser: Browser;
  let page: Page;
  let workspace: string;
  const shots = new Screenshots();

  before(async () => {
    workspace = fs.mkdtempSync(path.join(process.env.TMPDIR ?? '/tmp', 'leo-web-noagent-'));
    t = await startTestDaemon({ config: config(workspace) });
    browser = await launchBrowser();
    ({ page } = await pairedPage(browser, t, 'phone'));
  });
  after(async () => {
    await browser?.close();
    await t?.stop();
    if (workspace) fs.rmSync(workspace, { recursive: true, force: true });
  });

  it('the empty fleet points at the New agent button, not a terminal command', async () => {
    const empty = page.locator('.fleet-screen .empty');
    await empty.waitFor();
    assert.doesNotMatch(await empty.innerText(), /leo agent spawn/);
    assert.equal(await empty.locator('a[href="#/new"]').count(), 1);
    await shots.take(page, 'fleet-empty');
  });

  it("the failed task's card shows in the fleet as the assistant's thread, pinned first, with its unread badge", async () => {
    const r = await t.op('POST', '/api/v1/tasks/nightly/run');
    assert.equal(r.status, 202, r.text);
    const card = await until(
      "the task's card in the assistant's thread",
      async () =>
        (await t.op('GET', '/api/v1/chat/assistant/messages')).json.data?.messages?.find(
          (m: { kind: string }) => m.kind === 'task',
        ),
      20_000,
    );
    assert.ok(card);
    assert.equal((await t.get('/api/v1/state', StateSnapshot)).agents.length, 0, 'no agent exists');
    const row = page.locator('.fleet [data-agent="assistant"]');
    await row.waitFor({ timeout: 10_000 });
    assert.equal(await row.locator('[data-unread]').getAttribute('data-unread'), '1');
    assert.match(await row.innerText(), /No agent/);
    await page.locator('.empty', { hasText: 'No agents yet' }).waitFor({ state: 'detached' });
    await shots.take(page, 'fleet-no-agent-thread');

    // A spawned agent sorts after the pinned thread.
    const spawned = await t.op('POST', '/api/v1/agents/spawn', { template: 'cat', name: 'aaron' });
    assert.equal(spawned.status, 201, spawned.text);
    await page.locator('.fleet [data-agent="aaron"]').waitFor();
    const order = await page
      .locator('.fleet [data-agent]')
      .evaluateAll((els) => els.map((e) => e.getAttribute('data-agent')));
    assert.deepEqual(order, ['assistant', 'aaron']);
  });

  it('its thread shows the card, no composer, no terminal or controls, and says why with a spawn prefilled', async () => {
    await page.locator('.fleet [data-agent="assistant"] .agent-link').click();
    const thread = page.locator('[data-thread="assistant"]');
    await thread.locator('.messages [data-kind="task"]').waitFor();
    const why = thread.locator('[data-no-agent]');
    await why.waitFor();
    assert.match(
      await why.innerText(),
      /No agent named assistant: task cards land here\. Spawn an agent named assistant to talk to it\./,
    );
    assert.equal(await thread.locator('.composer').count(), 0, 'no composer');
    assert.equal(await thread.locator('.term-toggle').count(), 0, 'no terminal');
    assert.equal(await thread.locator('.manage-link').count(), 0, 'no controls');
    await shots.take(page, 'thread-no-agent');

    await why.getByRole('link', { name: 'Spawn assistant' }).click();
    const name = page.locator('#spawn-name');
    await name.waitFor();
    assert.equal(await name.inputValue(), 'assistant');
    await shots.take(page, 'spawn-prefilled');
    await page.getByRole('button', { name: 'Start agent' }).click();
    // Once the agent exists its thread is an ordinary one: the card stays, the composer is back.
    await page.locator('[data-thread="assistant"] .composer').waitFor({ timeout: 15_000 });
    await page.locator('[data-thread="assistant"] .messages [data-kind="task"]').waitFor();
    assert.equal(await page.locator('[data-thread="assistant"] [data-no-agent]').count(), 0);
  });
});
