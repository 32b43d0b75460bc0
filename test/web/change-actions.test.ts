// Issue 33 in Leo Web, on a phone: an agent's changed files → select two of three → "Suggest" asks the agent for a
// commit message in its thread and fills in its answer → commit → push → open the pull request, each step showing
// git's (or gh's) answer, and a thread note for each. Real daemon, real git with a bare repository behind `origin`
// (pushes go to it through url.<bare>.pushInsteadOf, so the remote still reads as GitHub), a stand-in gh logged in,
// and a shell agent that answers a request for a commit message the way any agent does: leo_chat_post over HTTP with
// its own token. Then discarding two files behind a confirmation that names them, and an agent in a turn: its 409
// shown with "Do it anyway".
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { Changes } from '../../src/wire/changes.js';
import { MessagePage } from '../../src/wire/message.js';
import { untilWorking } from '../helpers/agent-working.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { makeChangedRepoWithOrigin } from '../helpers/git-repo.js';
import { tempDir } from '../helpers/temp-home.js';
import { until } from '../helpers/wait.js';
import { launchBrowser, pairedPage, Screenshots } from './browser.js';

const REMOTE = 'https://github.com/acme/widget.git';
const PR_URL = 'https://github.com/acme/widget/pull/7';

/**
 * A stand-in gh, logged in while `logged-in` lies beside it: `pr create` records its arguments (NUL-ended) and prints
 * the new pull request's URL.
 */
const FAKE_GH = `#!/bin/sh
dir=$(dirname "$0")
[ "$1" = auth ] && { [ -e "$dir/logged-in" ]; exit $?; }
for a in "$@"; do printf '%s\\0' "$a"; done > "$dir/args"
echo "${PR_URL}"
`;

/** What the agent answers when asked for a commit message: fenced, as models like to. */
const SUGGESTION = 'Update b and note why\n\nb is 3 now; the new note says why.';

/**
 * The agent: reads what is typed into it and, asked for a commit message, posts one to its thread with its own token
 * (its chat tool's HTTP route).
 */
const AGENT = `while IFS= read -r line; do
  case "$line" in
    *"suggest a git commit message"*)
      sleep 3
      curl -s --noproxy '*' -o /dev/null -X POST -H "Authorization: Bearer $LEO_AGENT_TOKEN" \\
        -H 'content-type: application/json' --data @"$SUGGESTION_FILE" "\${LEO_MCP_URL%/mcp}/chat/post" ;;
  esac
done
`;

describe('Leo Web: commit, push and open a pull request from the phone', () => {
  let t: TestDaemon;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let repo: string;
  let bare: string;
  let bin: string;
  const shots = new Screenshots();
  const env = (root: string) => ({ ...process.env, HOME: root, GIT_CONFIG_NOSYSTEM: '1' });
  let g: (...args: string[]) => string;
  const file = (p: string) => page.locator(`[data-file="${p}"]`);
  const result = (step: string) => page.locator(`[data-result="${step}"]`);
  const thread = async () =>
    MessagePage.parse((await t.op('GET', '/api/v1/chat/dev/messages?limit=100')).json.data).messages;

  before(async () => {
    const root = tempDir('leo-web-actions-');
    ({ repo, bare } = makeChangedRepoWithOrigin(root, REMOTE));
    g = (...args) => execFileSync('git', args, { cwd: repo, encoding: 'utf8', env: env(root) }).trim();
    bin = path.join(root, 'bin');
    fs.mkdirSync(bin);
    fs.writeFileSync(path.join(bin, 'gh'), FAKE_GH, { mode: 0o755 });
    fs.writeFileSync(path.join(bin, 'logged-in'), '');
    fs.writeFileSync(path.join(root, 'agent.sh'), AGENT);
    const reply = path.join(root, 'reply.json');
    fs.writeFileSync(reply, JSON.stringify({ text: '```\n' + SUGGESTION + '\n```' }));
    t = await startTestDaemon({
      config: `templates:
  dev: { harness: shell, command: ${JSON.stringify(`SUGGESTION_FILE=${reply} exec sh ${path.join(root, 'agent.sh')}`)}, workspace: ${JSON.stringify(repo)} }
  ticker: { harness: shell, command: "while true; do echo tick; sleep 0.3; done", workspace: ${JSON.stringify(repo)} }
`,
      env: { PATH: `${bin}${path.delimiter}${process.env.PATH}`, HOME: root, GIT_CONFIG_NOSYSTEM: '1' },
    });
    const spawned = await t.op('POST', '/api/v1/agents/spawn', { template: 'dev', name: 'dev' });
    assert.equal(spawned.status, 201, spawned.text);
    browser = await launchBrowser();
    ({ context, page } = await pairedPage(browser, t, 'phone'));
    // The forge's pages, as the new tab the app opens loads them: no network in a test.
    await context.route('https://github.com/**', (r) => r.fulfill({ contentType: 'text/html', body: 'the forge' }));
  });
  after(async () => {
    await browser?.close();
    await t?.stop();
  });

  it('lists the changed files with a box each, large enough for a thumb', async () => {
    await page.goto(`${t.daemon.appUrl}#/c/dev`);
    await file('src/app.ts').waitFor();
    assert.equal(await page.locator('.change-list li').count(), 3);
    const box = await file('src/app.ts').locator('.change-select').boundingBox();
    assert.ok(box && box.width >= 44 && box.height >= 44, JSON.stringify(box));
    await shots.take(page, 'actions-list');
  });

  it('select all and none, then two of the three', async () => {
    await page.getByRole('button', { name: 'Select all' }).click();
    assert.equal(await page.locator('.change-select input:checked').count(), 3);
    await page.getByRole('button', { name: 'Select none' }).click();
    assert.equal(await page.locator('.change-select input:checked').count(), 0);
    await file('src/app.ts').locator('.change-select').click();
    await file('notes/new file.md').locator('.change-select').click();
    assert.equal(await page.locator('.change-select input:checked').count(), 2);
    assert.equal(await page.getByRole('button', { name: 'Commit 2 files' }).count(), 1);
    await shots.take(page, 'actions-selected');
    // A look at a diff and back keeps the selection.
    await file('src/app.ts').locator('.change-link').click();
    await page.locator('.diff-unified').waitFor();
    await shots.take(page, 'actions-diff');
    await page.locator('.back').click();
    await file('src/app.ts').waitFor();
    assert.equal(await page.locator('.change-select input:checked').count(), 2);
  });

  it('"Suggest" asks the agent in its thread and fills in its answer, which stays editable', async () => {
    await page.getByRole('button', { name: 'Suggest' }).click();
    assert.equal(await page.locator('.waiting [role="status"]').innerText(), 'waiting for dev…');
    await page.screenshot({ path: `${shots.dir}/actions-waiting-390x844.png`, fullPage: true });
    const box = page.locator('#commit-message');
    await until(
      'the suggested message',
      async () => ((await box.inputValue()) === SUGGESTION ? true : undefined),
      15_000,
    );
    assert.equal(await page.locator('.waiting').count(), 0, 'no longer waiting');
    const asked = (await thread()).find((m) => m.direction === 'in' && /commit message/.test(m.text));
    assert.ok(asked, 'the request is in the thread');
    assert.match(asked.text, /src\/app\.ts, notes\/new file\.md/);
    await box.fill(`${SUGGESTION}\n\nReviewed on the phone.`);
    await shots.take(page, 'actions-suggested');
  });

  it('commits the two selected files: the commit id and git’s summary shown, the third file left', async () => {
    await page.getByRole('button', { name: 'Commit 2 files' }).click();
    await result('commit').waitFor();
    const shown = await result('commit').innerText();
    assert.match(shown, new RegExp(`commit ${g('rev-parse', 'HEAD')}`));
    assert.match(shown, /\[feature [0-9a-f]+\] Update b and note why/);
    assert.match(shown, /2 files changed/);
    assert.deepEqual(g('show', '--name-only', '--format=', 'HEAD').split('\n').sort(), [
      'notes/new file.md',
      'src/app.ts',
    ]);
    assert.equal(g('log', '-1', '--format=%B'), `${SUGGESTION}\n\nReviewed on the phone.`);
    await until(
      'the list without the committed files',
      async () => ((await page.locator('.change-list li').count()) === 1 ? true : undefined),
      10_000,
    );
    await file('gone.txt').waitFor();
    await shots.take(page, 'actions-committed');
  });

  it('pushes the branch to origin, setting its upstream: git’s output shown', async () => {
    await page.getByRole('button', { name: 'Push', exact: true }).click();
    await result('push').waitFor();
    assert.match(await result('push').innerText(), /Pushed feature to origin\/feature \(upstream set\)/);
    const inBare = execFileSync('git', ['--git-dir', bare, 'rev-parse', 'refs/heads/feature'], { encoding: 'utf8' });
    assert.equal(inBare.trim(), g('rev-parse', 'HEAD'));
    await shots.take(page, 'actions-pushed');
  });

  it('opens the pull request, its title the commit’s subject, and shows its link', async () => {
    const title = page.getByLabel('Title');
    assert.equal(await title.inputValue(), 'Update b and note why');
    await page.getByLabel('Description').fill('Made on the phone.');
    await page.getByLabel(/Into branch/).fill('main');
    await page.getByRole('button', { name: 'Open pull request' }).click();
    const link = page.locator('[data-pr-link]');
    await link.waitFor();
    assert.equal(await link.getAttribute('href'), PR_URL);
    assert.equal(await link.getAttribute('target'), '_blank');
    const args = fs.readFileSync(path.join(bin, 'args'), 'utf8').split('\0').slice(0, -1);
    assert.deepEqual(args, [
      'pr',
      'create',
      '--repo=github.com/acme/widget',
      '--head=feature',
      '--title=Update b and note why',
      '--body=Made on the phone.',
      '--base=main',
    ]);
    await shots.take(page, 'actions-pull-request');
  });

  it('without gh logged in, the forge’s page for the pull request opens in a new tab, its link kept', async () => {
    fs.rmSync(path.join(bin, 'logged-in'));
    const opened = context.waitForEvent('page');
    await page.getByRole('button', { name: 'Open pull request' }).click();
    const tab = await opened;
    await tab.waitForLoadState();
    const compare =
      'https://github.com/acme/widget/compare/main...feature?expand=1&title=Update+b+and+note+why&body=Made+on+the+phone.';
    assert.equal(tab.url(), compare);
    assert.equal(await tab.evaluate('window.opener === null'), true, 'opened without a way back to the app');
    await tab.close();
    assert.equal(await page.locator('[data-pr-link]').getAttribute('href'), compare);
    assert.match(await result('pr').innerText(), /Finish the pull request on the forge's page \(feature → main\)/);
    await shots.take(page, 'actions-pull-request-compare');
  });

  it('the third file is still uncommitted, and the thread notes what was done from the phone', async () => {
    const left = Changes.parse((await t.op('GET', '/api/v1/agents/dev/changes')).json.data).files;
    assert.deepEqual(
      left.map((f) => `${f.path}:${f.kind}`),
      ['gone.txt:deleted'],
    );
    const notes = (await thread()).filter((m) => m.kind === 'system').map((m) => m.text);
    assert.ok(
      notes.some((n) => /^Committed from phone: \[feature [0-9a-f]+\] Update b and note why \(2 files/.test(n)),
    );
    assert.ok(notes.includes('Pushed feature to origin/feature from phone, setting its upstream.'), notes.join('\n'));
    assert.ok(notes.includes(`Opened a pull request (feature → main) from phone: ${PR_URL}`), notes.join('\n'));
    assert.ok(
      notes.some((n) =>
        n.startsWith(
          'Pull request (feature → main) started from phone, to finish on the forge: https://github.com/acme/widget/compare/',
        ),
      ),
      notes.join('\n'),
    );
    await page.goto(`${t.daemon.appUrl}#/t/dev`);
    await page.locator('.msg-system', { hasText: 'Opened a pull request' }).first().waitFor();
    await shots.take(page, 'actions-thread-notes');
  });

  it('discard asks first, naming each file and saying which are deleted for good', async () => {
    fs.writeFileSync(path.join(repo, 'scratch.txt'), 'junk\n');
    await page.goto(`${t.daemon.appUrl}#/c/dev`);
    await file('scratch.txt').waitFor();
    // A view opened afresh: the pull request's title starts as the last commit's subject all the same.
    assert.equal(await page.getByLabel('Title').inputValue(), 'Update b and note why');
    await page.getByRole('button', { name: 'Select all' }).click();
    await page.getByRole('button', { name: 'Discard selected…' }).click();
    const dialog = page.getByRole('alertdialog');
    assert.match(await dialog.innerText(), /Put back as last committed: gone\.txt/);
    assert.match(await dialog.innerText(), /Deleted for good.*scratch\.txt/s);
    await shots.take(page, 'actions-discard-confirm');
    await dialog.getByRole('button', { name: 'Discard', exact: true }).click();
    await result('discard').waitFor();
    assert.match(await result('discard').innerText(), /Put back as last committed: gone\.txt\nDeleted: scratch\.txt/);
    assert.equal(fs.readFileSync(path.join(repo, 'gone.txt'), 'utf8'), 'bye\n');
    assert.ok(!fs.existsSync(path.join(repo, 'scratch.txt')));
    await until(
      'no changes listed',
      async () => ((await page.locator('.change-list li').count()) === 0 ? true : undefined),
      10_000,
    );
    await shots.take(page, 'actions-discarded');
  });

  it('an agent in a turn: the refusal is shown with "Do it anyway", which pushes all the same', async () => {
    const spawned = await t.op('POST', '/api/v1/agents/spawn', { template: 'ticker', name: 'ticker' });
    assert.equal(spawned.status, 201, spawned.text);
    await untilWorking(t, 'ticker');
    await page.goto(`${t.daemon.appUrl}#/c/ticker`);
    await page.locator('[data-change-actions="ticker"]').waitFor();
    await page.getByRole('button', { name: 'Push', exact: true }).click();
    await result('push').waitFor();
    assert.match(await result('push').innerText(), /ticker is in the middle of a turn/);
    await shots.take(page, 'actions-busy');
    await result('push').getByRole('button', { name: 'Do it anyway' }).click();
    await page.locator('[data-result="push"].ok').waitFor();
    assert.match(await result('push').innerText(), /Pushed feature to origin\/feature\n.*up-to-date/s);
    await t.op('POST', '/api/v1/agents/ticker/stop');
  });
});
