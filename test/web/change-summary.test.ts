// Issue 33, Done-when 4 in a real browser at phone size: an agent's card shows its workspace's changes in figures and
// follows a file write within 2 s from the event stream alone (the app makes no other request after it loaded); a
// clean workspace even with its upstream shows nothing.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { systemClock } from '../../src/core/clock.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { makeUpstreamRepo } from '../helpers/upstream-repo.js';
import { DESKTOP, launchBrowser, pairedPage, PHONE, Screenshots } from './browser.js';

describe('Leo Web: the fleet’s change summary', () => {
  const dev = makeUpstreamRepo();
  const tidy = makeUpstreamRepo();
  let t: TestDaemon;
  let browser: Browser;
  let page: Page;
  const shots = new Screenshots();
  const requests: string[] = [];
  const card = (name: string) => page.locator(`[data-agent="${name}"]`);

  before(async () => {
    const template = (repo: string) => `{ harness: shell, command: "exec cat", workspace: ${JSON.stringify(repo)} }`;
    [t, browser] = await Promise.all([
      startTestDaemon({
        clock: systemClock,
        config: `templates:\n  dev: ${template(dev.repo)}\n  tidy: ${template(tidy.repo)}\n`,
      }),
      launchBrowser(),
    ]);
    for (const name of ['dev', 'tidy'])
      assert.equal((await t.op('POST', '/api/v1/agents/spawn', { template: name, name })).status, 201);
    // Work already there when the app loads: one commit ahead and a file changed.
    fs.writeFileSync(path.join(dev.repo, 'a.txt'), 'a\n');
    dev.commitAll('a');
    fs.appendFileSync(path.join(dev.repo, 'README.md'), 'more\n');
    ({ page } = await pairedPage(browser, t, 'phone', { mobile: true }));
  });
  after(async () => {
    await browser?.close();
    await t?.stop();
  });

  it('the card shows the summary the state carries, compact on a phone; a clean workspace shows none', async () => {
    await card('dev').locator('.agent-changes', { hasText: '1 file +1 −0 ↑1' }).waitFor({ timeout: 5000 });
    assert.equal(
      await card('dev').locator('.agent-changes').getAttribute('data-changes'),
      '1 file, +1 −0, 1 commit ahead',
    );
    assert.equal(await card('tidy').locator('.agent-changes').count(), 0);
    await shots.take(page, 'fleet-changes');
  });

  it('a file written updates the card within 2 s, with no request but the event stream', async () => {
    // Loaded: whatever the app asked at start is answered; from here on only the stream may be asked for.
    await page.waitForTimeout(1000);
    page.on('request', (r) => requests.push(new URL(r.url()).pathname));
    const written = Date.now();
    fs.writeFileSync(path.join(dev.repo, 'notes.md'), 'one\ntwo\nthree\n');
    await card('dev').locator('.agent-changes', { hasText: '2 files +4 −0 ↑1' }).waitFor({ timeout: 2000 });
    console.log(`# card updated ${Date.now() - written} ms after the write`);
    // Another second of quiet: no poll follows either.
    await page.waitForTimeout(1500);
    assert.deepEqual(
      requests.filter((p) => p !== '/api/v1/events'),
      [],
    );
  });

  it('a commit and a push: the card follows to nothing, then a file changed again', async () => {
    // A commit and a push are git's own work first: these wait longer than the write's 2 s.
    dev.commitAll('notes');
    await card('dev').locator('.agent-changes', { hasText: '↑2' }).waitFor({ timeout: 5000 });
    dev.git('push', '-q');
    await card('dev').locator('.agent-changes').waitFor({ state: 'detached', timeout: 5000 });
    fs.writeFileSync(path.join(dev.repo, 'README.md'), '# demo\n');
    await card('dev').locator('.agent-changes', { hasText: '1 file +0 −2' }).waitFor({ timeout: 2000 });
    // A wide screen's fleet has the long words.
    await page.setViewportSize(DESKTOP);
    assert.ok(await card('dev').locator('.changes-long').isVisible());
    assert.ok(!(await card('dev').locator('.changes-short').isVisible()));
    assert.equal(await card('dev').locator('.changes-long').innerText(), '1 file, +0 −2');
    await page.setViewportSize(PHONE);
    assert.ok(!(await card('dev').locator('.changes-long').isVisible()));
    await shots.take(page, 'fleet-changes-after');
  });
});
