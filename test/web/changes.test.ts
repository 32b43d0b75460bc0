// Changed files in Leo Web (issue 17): an agent whose workspace is a git repository with a modified, a deleted and
// an untracked file; the list from the controls screen, each diff escaped, unified on a phone and split side by side
// on a wide screen, and "Ask about this file" putting `@<path> ` in the thread's composer. Also the plain-HTTP
// warning: shown when the app is reached over plain HTTP by a name that is not loopback, dismissible, never on
// 127.0.0.1.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { chromium, type Browser, type Page } from 'playwright-core';
import type { TestDaemon } from '../helpers/daemon.js';
import { makeChangedRepo, startRepoAgent } from '../helpers/git-repo.js';
import { request } from '../helpers/http.js';
import { until } from '../helpers/wait.js';
import { CHROMIUM, DESKTOP, PHONE, launchBrowser, pairedPage, Screenshots, watchPage } from './browser.js';

describe('Leo Web: changed files', () => {
  let t: TestDaemon;
  let browser: Browser;
  let page: Page;
  const shots = new Screenshots();

  before(async () => {
    const { repo } = makeChangedRepo();
    t = await startRepoAgent(repo, '  allowed_hosts: [leo.test]\n');
    browser = await launchBrowser();
    ({ page } = await pairedPage(browser, t, 'phone'));
  });
  after(async () => {
    await browser?.close();
    await t?.stop();
  });

  it("the controls screen links to the workspace's changed files, each with its kind", async () => {
    assert.equal(await page.locator('[data-http-warning]').count(), 0, 'no warning on 127.0.0.1');
    await page.goto(`${t.daemon.appUrl}#/t/dev`);
    await page.locator('.manage-link').click();
    await page.locator('.changes-link').click();
    await page.locator('[data-screen="changes"] [data-file="src/app.ts"]').waitFor();
    const kinds = await page
      .locator('.change-list li')
      .evaluateAll((els) => els.map((e) => `${e.getAttribute('data-file')}:${e.getAttribute('data-kind')}`));
    assert.deepEqual(kinds.sort(), ['gone.txt:deleted', 'notes/new file.md:untracked', 'src/app.ts:modified']);
    await shots.take(page, 'changes-list');
  });

  it('a diff is unified on a phone, its markup as text', async () => {
    await page.locator('[data-file="src/app.ts"] .change-link').click();
    const table = page.locator('.diff-unified');
    await table.waitFor();
    assert.equal(await page.locator('.diff-split').count(), 0);
    assert.match(await table.locator('tr.d-del').innerText(), /export const b = 2;/);
    assert.match(await table.locator('tr.d-add').innerText(), /export const b = 3; \/\/ <b>bold<\/b>/);
    assert.equal(await page.locator('.diff b').count(), 0, 'diff text is never markup');
    await shots.take(page, 'changes-diff');
  });

  it('a wide screen shows the same diff side by side, old left and new right', async () => {
    await page.setViewportSize({ width: 1400, height: 800 });
    const split = page.locator('.diff-split');
    await split.waitFor();
    const changed = split.locator('tr', { has: page.locator('td.d-del') });
    const cells = await changed.locator('td').allInnerTexts();
    assert.deepEqual(cells, ['2', 'export const b = 2;', '2', 'export const b = 3; // <b>bold</b>']);
    await page.screenshot({ path: `${shots.dir}/changes-diff-split-1400x800.png` });
    await page.setViewportSize(PHONE);
  });

  it('an untracked file reads as a new file', async () => {
    await page.locator('.back').click();
    await page.locator('[data-file="notes/new file.md"] .change-link').click();
    await page.locator('[data-diff="notes/new file.md"] tr.d-add', { hasText: 'a new note' }).waitFor();
  });

  it('"Ask about this file" opens the thread with @<path> in the composer', async () => {
    await page.getByRole('button', { name: 'Ask about this file' }).click();
    await page.locator('[data-screen="thread"][data-thread="dev"]').waitFor();
    const box = page.locator('.composer textarea');
    await until('the draft in the composer', async () => (await box.inputValue()) || undefined, 5000);
    assert.equal(await box.inputValue(), '@notes/new file.md ');
    await shots.take(page, 'changes-ask-about');
  });

  it('over plain HTTP to a name that is not loopback, a dismissible banner points at leo remote', async () => {
    const remote = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--host-resolver-rules=MAP leo.test 127.0.0.1'],
    });
    try {
      const issued = await request(t.tcp, 'POST', '/api/v1/devices/pairing-codes', {
        token: t.daemon.operatorToken,
        body: { name: 'tablet' },
      });
      const url = new URL(issued.json.data.url);
      url.hostname = 'leo.test';
      const context = await remote.newContext({ viewport: DESKTOP });
      const p = watchPage(await context.newPage());
      await p.goto(url.href);
      await p.locator('[data-connection="live"]').waitFor();
      const banner = p.locator('[data-http-warning]');
      await banner.waitFor();
      assert.match(await banner.innerText(), /HTTPS/);
      assert.match(await banner.innerText(), /leo remote/);
      await shots.take(p, 'http-warning');
      await banner.getByRole('button', { name: 'Dismiss' }).click();
      assert.equal(await banner.count(), 0);
      await p.reload();
      await p.locator('[data-connection="live"]').waitFor();
      assert.equal(await p.locator('[data-http-warning]').count(), 0, 'a dismissed banner stays dismissed');
    } finally {
      await remote.close();
    }
  });
});
