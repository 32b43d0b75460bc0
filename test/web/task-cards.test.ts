// Task failure cards and system notes in Leo Web's thread (issue 16), produced the real way: oneshot shell tasks that
// fail, run through the API (the daemon runs `leo run`, which reports the failure over the socket), one owned by an
// agent and one by a name that is no agent (its card falls back to the assistant with a system note).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { until } from '../helpers/wait.js';
import { launchBrowser, pairedPage, Screenshots } from './browser.js';
import { tempDir } from '../helpers/temp-home.js';

const config = (workspace: string) => `templates:
  cat: { harness: shell, command: "exec cat" }
tasks:
  nightly:
    schedule: "0 0 1 1 *"
    harness: shell
    workspace: ${JSON.stringify(workspace)}
    command: 'echo "tests: 3 failed <script>alert(1)</script>" >&2; exit 3'
    prompt: run the nightly checks
    notify_on_fail: true
    owner: den
  orphan:
    schedule: "0 0 1 1 *"
    harness: shell
    workspace: ${JSON.stringify(workspace)}
    command: 'exit 5'
    prompt: fail for nobody
    notify_on_fail: true
    owner: ghost
`;

describe('Leo Web: task failure cards and system notes', () => {
  let t: TestDaemon;
  let browser: Browser;
  let page: Page;
  const shots = new Screenshots();
  const cardIn = async (agent: string, task: string) =>
    until(
      `${task}'s card in ${agent}'s thread`,
      async () => {
        const page = await t.op('GET', `/api/v1/chat/${agent}/messages`);
        return page.json.data.messages.find(
          (m: { kind: string; task?: string }) => m.kind === 'task' && m.task === task,
        );
      },
      20_000,
    );

  before(async () => {
    const workspace = tempDir('leo-web-tasks-');
    t = await startTestDaemon({ config: config(workspace) });
    browser = await launchBrowser();
    for (const name of ['assistant', 'den']) {
      const r = await t.op('POST', '/api/v1/agents/spawn', { template: 'cat', name });
      assert.equal(r.status, 201, r.text);
    }
    for (const task of ['nightly', 'orphan']) {
      const r = await t.op('POST', `/api/v1/tasks/${task}/run`);
      assert.equal(r.status, 202, r.text);
    }
    await Promise.all([cardIn('den', 'nightly'), cardIn('assistant', 'orphan')]);
    ({ page } = await pairedPage(browser, t, 'phone'));
  });
  after(async () => {
    await browser?.close();
    await t?.stop();
  });

  it("a failure card reads as the task's card: labelled with the task, its title bold, the error in a code block as text", async () => {
    const card = await cardIn('den', 'nightly');
    await page.locator('[data-agent="den"] .agent-link').click();
    const el = page.locator(`.messages [data-id="${card.id}"]`);
    await el.waitFor();
    assert.equal(await el.getAttribute('data-kind'), 'task');
    assert.match((await el.locator('.msg-label').textContent()) ?? '', /Task · nightly/);
    assert.equal(await el.locator('.msg-md strong').first().innerText(), 'Task failed: nightly');
    const code = el.locator('.msg-md pre code');
    assert.match(await code.innerText(), /tests: 3 failed <script>alert\(1\)<\/script>/, 'the error shows as text');
    assert.equal(await el.locator('script').count(), 0);
    await shots.take(page, 'thread-failure-card');
  });

  it("a card whose owner is no agent lands in the assistant's thread after a system note naming the owner", async () => {
    const card = await cardIn('assistant', 'orphan');
    await page.goto(`${t.daemon.appUrl}#/t/assistant`);
    await page.locator(`.messages [data-id="${card.id}"]`).waitFor();
    const note = page.locator('.messages .msg-system', { hasText: 'ghost' });
    await note.waitFor();
    await shots.take(page, 'thread-system-note');
  });
});
