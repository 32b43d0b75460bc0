// Tasks in Leo Web (issue 17): the tasks screen from the fleet header, a task's schedule, next run, owner and runs,
// "Run now" from a paired phone, and a run's log opened in the app — from the run list and from the failure card's
// link in the owner's thread. Real oneshot shell runs through the daemon (the way task-cards.test.ts makes them).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { until } from '../helpers/wait.js';
import { launchBrowser, pairedPage, Screenshots } from './browser.js';
import { tempDir } from '../helpers/temp-home.js';
import { MessagePage } from '../../src/wire/message.js';

const config = (workspace: string) => `templates:
  cat: { harness: shell, command: "exec cat" }
tasks:
  nightly:
    schedule: "0 3 * * *"
    harness: shell
    workspace: ${JSON.stringify(workspace)}
    command: 'sleep 1; echo "checking 12 packages"; echo "<b>not bold</b> tests: 3 failed" >&2; exit 3'
    prompt: run the nightly checks
    notify_on_fail: true
    owner: den
  tidy:
    schedule: "*/30 * * * *"
    harness: shell
    workspace: ${JSON.stringify(workspace)}
    command: 'echo tidied'
    prompt: tidy up
    owner: den
  slow:
    schedule: "0 4 * * *"
    harness: shell
    workspace: ${JSON.stringify(workspace)}
    command: 'echo "step one done"; sleep 4; echo "step two done"'
    prompt: take your time
    owner: den
`;

describe('Leo Web: tasks', () => {
  let t: TestDaemon;
  let browser: Browser;
  let page: Page;
  const shots = new Screenshots();

  before(async () => {
    const workspace = tempDir('leo-web-tasks-');
    t = await startTestDaemon({ config: config(workspace) });
    browser = await launchBrowser();
    for (const name of ['assistant', 'den'])
      assert.equal((await t.op('POST', '/api/v1/agents/spawn', { template: 'cat', name })).status, 201);
    assert.equal((await t.op('POST', '/api/v1/tasks/tidy/run')).status, 202);
    ({ page } = await pairedPage(browser, t, 'phone'));
  });
  after(async () => {
    await browser?.close();
    await t?.stop();
  });

  it('the fleet header links to the tasks: each with its schedule, next run, owner and last run', async () => {
    await shots.take(page, 'fleet-tasks-link');
    await page.locator('.tasks-link').click();
    await page.locator('[data-screen="tasks"] [data-task="nightly"]').waitFor();
    const tidy = page.locator('[data-task="tidy"]');
    await tidy.locator('[data-run-status="succeeded"]').waitFor();
    assert.match(await tidy.innerText(), /\*\/30 \* \* \* \*/);
    assert.match(await tidy.innerText(), /next /);
    assert.match(await tidy.innerText(), /cards to den/);
    assert.match(await page.locator('[data-task="nightly"]').innerText(), /never run/);
    await shots.take(page, 'tasks-list');
  });

  it('Run now from the phone starts a run, shown running, then failed with its duration', async () => {
    await page.locator('[data-task="nightly"] .task-link').click();
    await page.locator('[data-screen="task"][data-task="nightly"]').waitFor();
    assert.match(await page.locator('.task-facts').innerText(), /Owner\s+den/);
    assert.match(await page.locator('[data-next-run]').innerText(), /\d/);
    await page.getByRole('button', { name: 'Run now' }).click();
    await page.locator('.run-list [data-run-status="running"]').waitFor();
    await page.locator('.run-list [data-run-status="failed"]').waitFor({ timeout: 20_000 });
    assert.match(await page.locator('.run-list li').first().locator('.run-dur').innerText(), /\d+ (s|ms)/);
    await shots.take(page, 'task-detail');
  });

  it("a run's log opens in the app as text", async () => {
    await page.locator('.run-list li').first().locator('.run-log-link').click();
    const log = page.locator('.run-log .log-text');
    await log.waitFor();
    assert.match(await log.innerText(), /<b>not bold<\/b> tests: 3 failed/);
    assert.equal(await page.locator('.run-log b').count(), 0, 'log text is never markup');
    await shots.take(page, 'task-run-log');
  });

  it("a running run's log opens while it runs and follows it to the end", async () => {
    await page.goto(`${t.daemon.appUrl}#/tasks/slow`);
    await page.getByRole('button', { name: 'Run now' }).click();
    const running = page.locator('.run-list li', { has: page.locator('[data-run-status="running"]') });
    await running.locator('.run-log-link').click();
    const log = page.locator('.run-log .log-text');
    await log.filter({ hasText: 'step one done' }).waitFor({ timeout: 10_000 });
    assert.doesNotMatch(await log.innerText(), /step two done/);
    assert.equal(await page.locator('.run-following').count(), 1, 'it says it is following');
    await shots.take(page, 'task-run-log-following');
    await log.filter({ hasText: 'step two done' }).waitFor({ timeout: 15_000 });
    await page.locator('.run-list [data-run-status="succeeded"]').first().waitFor({ timeout: 10_000 });
    await page.locator('.run-following').waitFor({ state: 'detached' });
  });

  it("the failure card's link in the owner's thread opens the same log", async () => {
    const card = await until(
      "nightly's failure card",
      async () =>
        (await t.get('/api/v1/chat/den/messages', MessagePage)).messages.find(
          (m: { kind: string; task?: string }) => m.kind === 'task' && m.task === 'nightly',
        ),
      20_000,
    );
    await page.goto(`${t.daemon.appUrl}#/t/den`);
    const link = page.locator(`.messages [data-id="${card.id}"] .task-log-link`);
    await link.waitFor();
    await shots.take(page, 'thread-failure-card-log-link');
    await link.click();
    await page.locator(`[data-log="${card.run_id}"] .log-text`).waitFor();
    assert.match(await page.locator('.log-text').innerText(), /tests: 3 failed/);
  });
  it("an open task screen follows a run's start and end from the event stream, never polling the list", async () => {
    let reads = 0;
    page.on('request', (r) => {
      if (r.method() === 'GET' && new URL(r.url()).pathname === '/api/v1/tasks') reads++;
    });
    // The opening read is answered before the run starts and reaches the page after the run's start event: the
    // list it carries must not take the running run back.
    let answered = false;
    let deliver = () => {};
    const delivered = new Promise<void>((resolve) => (deliver = resolve));
    await page.route('**/api/v1/tasks', async (route) => {
      const response = await route.fetch();
      answered = true;
      await delivered;
      await route.fulfill({ response });
    });
    await page.goto(`${t.daemon.appUrl}#/tasks/slow`);
    await page.locator('[data-screen="task"][data-task="slow"] .run-list').waitFor();
    await until('the opening read answered', async () => reads === 1 && answered, 5_000);
    // Started elsewhere (the operator's API), so only the stream can tell this screen.
    const started = await t.op('POST', '/api/v1/tasks/slow/run');
    assert.equal(started.status, 202);
    const { run_id } = started.json.data as { run_id: string };
    const runs = page.locator('.run-list [data-run-status="running"]');
    await runs.waitFor({ timeout: 10_000 });
    const late = page.waitForResponse((r) => new URL(r.url()).pathname === '/api/v1/tasks');
    deliver();
    await late;
    await page.unroute('**/api/v1/tasks');
    await new Promise((r) => setTimeout(r, 300));
    const run = page.locator(`.run-list [data-run="${run_id}"]`);
    assert.equal(await run.count(), 1, 'the late answer did not take the run back');
    await shots.take(page, 'task-run-started-live');
    await runs.waitFor({ state: 'detached', timeout: 20_000 });
    await page.getByRole('button', { name: 'Run now' }).waitFor();
    await new Promise((r) => setTimeout(r, 3_500));
    assert.equal(reads, 1, 'the list was read once, on opening');
  });

  it('a device without the fleet scope sees a task and its runs but no Run now', async () => {
    const guest = await pairedPage(browser, t, 'guest tablet', { fleet: false });
    try {
      await guest.page.goto(`${t.daemon.appUrl}#/tasks/tidy`);
      const screen = guest.page.locator('[data-screen="task"][data-task="tidy"]');
      await screen.locator('.run-list [data-run-status="succeeded"]').first().waitFor();
      await screen.locator('[data-no-fleet]').waitFor();
      assert.equal(await screen.getByRole('button', { name: 'Run now' }).count(), 0);
      await shots.take(guest.page, 'task-detail-without-fleet');
    } finally {
      await guest.context.close();
    }
  });
});
