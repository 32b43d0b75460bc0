// Issue 33 in Leo Web: an agent started from the spawn form with its own git worktree (the template's choice, shown
// and overridable), and a removal that keeps the tree because it holds work, which the app says before it goes back to
// the fleet, instead of leaving the owner to wonder where the work went.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { Agent } from '../../src/wire/fleet.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { makeUpstreamRepo } from '../helpers/upstream-repo.js';
import { until } from '../helpers/wait.js';
import { launchBrowser, pairedPage, Screenshots } from './browser.js';

describe('Leo Web: an agent in its own git worktree', () => {
  let t: TestDaemon;
  let browser: Browser;
  let page: Page;
  let repo: string;
  const shots = new Screenshots();
  const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, encoding: 'utf8' }).trim();

  before(async () => {
    ({ repo } = makeUpstreamRepo());
    const ws = JSON.stringify(repo);
    [t, browser] = await Promise.all([
      startTestDaemon({
        config: `templates:
  dev: { harness: shell, command: "exec cat", workspace: ${ws}, worktree: true }
  plain: { harness: shell, command: "exec cat", workspace: ${ws} }
`,
      }),
      launchBrowser(),
    ]);
    ({ page } = await pairedPage(browser, t, 'phone', { mobile: true }));
  });
  after(async () => {
    await browser?.close();
    await t?.stop();
  });

  it('the spawn form ticks the worktree as the template says; the agent works on leo/<name> in its own tree', async () => {
    await page.goto(`${new URL(page.url()).origin}/#/new`);
    await page.locator('#spawn-template').selectOption('plain');
    const tick = page.locator('[data-spawn-worktree]');
    assert.equal(await tick.isChecked(), false, 'plain makes no worktree');
    await page.locator('#spawn-template').selectOption('dev');
    assert.equal(await tick.isChecked(), true, "dev's template asks for one");
    await page.locator('#spawn-name').fill('kit');
    assert.match(await page.locator('label:has([data-spawn-worktree])').innerText(), /leo\/kit/);
    assert.equal(await page.locator('#spawn-branch').isDisabled(), true, 'the branch is leo/<name>');
    await shots.take(page, 'spawn-worktree');
    await page.getByRole('button', { name: 'Start agent' }).click();
    await page.waitForURL('**/#/t/kit');
    const kit = Agent.parse((await t.op('GET', '/api/v1/agents/kit')).json.data);
    assert.equal(kit.branch, 'leo/kit');
    assert.notEqual(kit.workspace, repo, 'not the repository itself');
    assert.equal(git(kit.workspace, 'branch', '--show-current'), 'leo/kit');
  });

  it('removing it while its tree holds work says where the tree stayed and why, then goes back to the fleet', async () => {
    const kit = Agent.parse((await t.op('GET', '/api/v1/agents/kit')).json.data);
    fs.writeFileSync(path.join(kit.workspace, 'draft.txt'), 'unfinished\n');
    await page.goto(`${new URL(page.url()).origin}/#/a/kit`);
    await page.getByRole('button', { name: 'Remove kit…' }).click();
    assert.match(await page.locator('#remove-q').innerText(), /worktree/);
    await page.waitForTimeout(1500);
    await page.getByRole('button', { name: 'Remove kit', exact: true }).click();
    const kept = page.locator('[data-worktree-kept]');
    await kept.waitFor();
    const said = await kept.innerText();
    assert.ok(said.includes(kit.workspace), said);
    assert.match(said, /leo\/kit/);
    assert.match(said, /1 uncommitted file/);
    await shots.take(page, 'worktree-kept');
    assert.ok(fs.existsSync(path.join(kit.workspace, 'draft.txt')), 'the work is still there');
    await until('kit is gone', async () => (await t.op('GET', '/api/v1/agents/kit')).status === 404, 10_000);
    await page.getByRole('button', { name: 'Back to the fleet' }).last().click();
    await page.waitForURL((u) => u.hash === '#/' || u.hash === '');
  });
});
