// Issue 28, item 5: bidi controls ("Trojan Source") never reach the page as-is. An agent's text, an ask's question and
// labels, a diff line and a changed file's name each carry U+202E (right-to-left override) or U+2066 (left-to-right
// isolate); the app draws each as its code point, so what the owner reads is the order the bytes are in. A zero-width
// joiner in prose (an emoji sequence) is left alone.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import type { TestDaemon } from '../helpers/daemon.js';
import { makeChangedRepo, startRepoAgent } from '../helpers/git-repo.js';
import { request } from '../helpers/http.js';
import { agentPost, launchBrowser, pairedPage, Screenshots } from './browser.js';

const RLO = '\u202E';
const LRI = '\u2066';
const FAMILY = '👨\u200D👩\u200D👧';
const BIDI = /[\u061C\u200E\u200F\u202A-\u202E\u2066-\u2069]/u;

describe('Leo Web: bidi controls are drawn, never obeyed', () => {
  let t: TestDaemon;
  let browser: Browser;
  let page: Page;
  const shots = new Screenshots();
  const fileName = `invoice${RLO}txt.exe`;

  before(async () => {
    const { repo } = makeChangedRepo();
    fs.writeFileSync(path.join(repo, fileName), 'payload\n');
    fs.appendFileSync(
      path.join(repo, 'src/app.ts'),
      `const isAdmin = false; /* ${RLO}${LRI} } if (isAdmin) ${LRI} */\n`,
    );
    t = await startRepoAgent(repo);
    browser = await launchBrowser();
    ({ page } = await pairedPage(browser, t, 'phone'));
  });
  after(async () => {
    await browser?.close();
    await t?.stop();
  });

  /** The page's whole rendered text holds no bidi control. */
  const noBidiOnPage = async () => {
    const text = (await page.evaluate('document.body.innerText')) as string;
    assert.doesNotMatch(text, BIDI, 'a bidi control reached the page');
  };

  it("an agent's message and an ask's question and labels show each control as its code point", async () => {
    const id = await agentPost(t, 'dev', `Saved **invoice${RLO}txt.exe** for you ${FAMILY}`);
    // Held until answered: the card stays open while the page is read.
    void request(t.tcp, 'POST', '/api/agent/dev/chat/ask', {
      token: t.daemon.agentToken,
      body: {
        timeout_s: 600,
        question: `Delete ${RLO}sgol old?`,
        input: {
          type: 'checkboxes',
          options: [
            { value: 'keep', label: `Keep ${RLO}lla`, description: `${LRI}nothing is deleted` },
            { value: 'drop', label: 'Delete all' },
          ],
        },
      },
    }).catch(() => undefined);
    await page.goto(`${t.daemon.appUrl}#/t/dev`);
    const msg = page.locator(`.messages [data-id="${id}"] .msg-md`);
    await msg.waitFor();
    await page.locator('.messages [data-kind="ask"] .choice').first().waitFor();
    assert.match((await msg.innerText()).trim(), /^Saved invoice⟨U\+202E⟩txt\.exe for you 👨‍👩‍👧$/u);
    assert.equal(await msg.locator('strong').count(), 1, 'markdown still renders');
    const card = page.locator('.messages [data-kind="ask"]');
    assert.match(await card.locator('.question').innerText(), /Delete ⟨U\+202E⟩sgol old\?/);
    const choices = await card.locator('.choice').allInnerTexts();
    assert.match(choices[0]!, /Keep ⟨U\+202E⟩lla/);
    assert.match(choices[0]!, /⟨U\+2066⟩nothing is deleted/);
    await noBidiOnPage();
    await shots.take(page, 'bidi-thread');
  });

  it("a changed file's name and its diff lines show their controls too", async () => {
    await page.goto(`${t.daemon.appUrl}#/c/dev`);
    const list = page.locator('[data-screen="changes"] .change-list');
    await list.locator('li').first().waitFor();
    const names = await list.locator('.change-path').allInnerTexts();
    assert.ok(names.includes('invoice⟨U+202E⟩txt.exe'), names.join(' | '));
    await page.locator(`[data-file="src/app.ts"] .change-link`).click();
    const added = page.locator('.diff tr.d-add', { hasText: 'isAdmin' });
    await added.waitFor();
    assert.match(await added.innerText(), /\/\* ⟨U\+202E⟩⟨U\+2066⟩ } if \(isAdmin\) ⟨U\+2066⟩ \*\//);
    await noBidiOnPage();
    await shots.take(page, 'bidi-changes');
  });
});
