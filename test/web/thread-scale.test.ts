// Leo Web's thread at scale (issue 16), in Debian's chromium against the real daemon with shell agents (cat): a
// 10 000-message thread opens at the bottom with a bounded DOM, lets a reader flick up just as a message arrives,
// pages older messages in above without moving what is on screen, keeps the view still under a live message while
// scrolled up (a pill counts it; a tap goes down), opens at one message from the inbox and pages newer ones in below
// it, loads the markdown renderer only once a thread needs it, and announces new agent messages in a live region that
// says nothing while scrolling.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Browser, Page } from 'playwright-core';
import { z } from 'zod';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { request } from '../helpers/http.js';
import { seedThread } from '../helpers/seed-thread.js';
import { agentPost, launchBrowser, pairedPage, Screenshots } from './browser.js';
import { Message } from '../../src/wire/message.js';

const CONFIG = 'templates:\n  cat: { harness: shell, command: "exec cat" }\n';
const BIG = 10_000;
/** A person reads for a while before scrolling on. */
const PACE_MS = 300;

/** The first row at least partly inside the scroller, and its top relative to the scroller's. */
const TOP_ROW = `(() => {
  const box = document.querySelector('.messages').getBoundingClientRect();
  for (const el of document.querySelectorAll('.messages [data-id]')) {
    const r = el.getBoundingClientRect();
    if (r.bottom > box.top + 1) return { id: el.getAttribute('data-id'), top: r.top - box.top };
  }
  return null;
})()`;
const rowTop = (id: string) => `(() => {
  const el = document.querySelector('.messages [data-id="${id}"]');
  return el ? el.getBoundingClientRect().top - document.querySelector('.messages').getBoundingClientRect().top : null;
})()`;
/** Whether a row is wholly inside the scroller's visible box. */
const inView = (id: string) => `(() => {
  const el = document.querySelector('.messages [data-id="${id}"]');
  if (!el) return false;
  const r = el.getBoundingClientRect(), box = document.querySelector('.messages').getBoundingClientRect();
  return r.top >= box.top - 1 && r.bottom <= box.bottom + 1;
})()`;
/** Polls a page expression until it is truthy (waitForFunction evaluates strings with eval, which the CSP refuses). */
async function until(page: Page, expr: string, timeoutMs = 5000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!(await page.evaluate(expr))) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${expr}`);
    await sleep(30);
  }
}
const FRAMES = 'new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => r(true))))';

describe('Leo Web: a 10 000-message thread', () => {
  let t: TestDaemon;
  let browser: Browser;
  let page: Page;
  let ids: string[];
  const shots = new Screenshots();
  const post = (agent: string, text: string) => agentPost(t, agent, text);
  const rows = () => page.locator('.messages [data-id]').count();
  const loaded = () => page.locator('.messages').getAttribute('data-count').then(Number);
  const scroller = () => page.locator('.messages');
  const fromBottom = () => scroller().evaluate((el) => el.scrollHeight - el.clientHeight - el.scrollTop);

  before(async () => {
    [t, browser] = await Promise.all([startTestDaemon({ config: CONFIG }), launchBrowser()]);
    for (const name of ['big', 'asker'])
      assert.equal((await t.op('POST', '/api/v1/agents/spawn', { template: 'cat', name })).status, 201);
    ids = seedThread(t, 'big', BIG);
    ({ page } = await pairedPage(browser, t, 'phone'));
  });
  after(async () => {
    await browser?.close();
    await t?.stop();
  });

  it('the fleet loads without the markdown renderer; the thread opens at the bottom with a bounded DOM and loads it', async () => {
    const scripts = () =>
      page.evaluate(`performance.getEntriesByType('resource').map((e) => e.name).filter((n) => /\\.js$/.test(n))`);
    assert.ok(!((await scripts()) as string[]).some((n) => /markdown/.test(n)), 'no markdown chunk on the fleet');

    const t0 = Date.now();
    await page.locator('[data-agent="big"] .agent-link').click();
    const newest = page.locator(`.messages [data-id="${ids.at(-1)}"]`);
    await newest.waitFor();
    await until(page, inView(ids.at(-1)!));
    console.log(`# opened a ${BIG}-message thread at the bottom in ${Date.now() - t0} ms`);
    assert.ok((await fromBottom()) < 2, 'at the bottom');
    const n = await rows();
    assert.equal(await loaded(), 50, 'the newest page');
    assert.ok(n > 5 && n < 50, `${n} rows in the DOM: only those near the viewport`);

    // Agent messages are markdown: the renderer came with the thread, and the rows re-rendered with it.
    await page.locator('.messages .msg-md strong', { hasText: 'the build' }).first().waitFor();
    assert.ok(
      ((await scripts()) as string[]).some((n) => /markdown/.test(n)),
      'the markdown chunk loaded',
    );
    await shots.take(page, 'thread-long');
  });

  it('a reader who flicks up just as a message arrives stays where they went', async () => {
    assert.ok((await fromBottom()) < 2, 'following at the bottom');
    const live = await post('big', 'one **more** thing, in markdown, so its row is measured again once it renders');
    await page.locator(`.messages [data-id="${live}"]`).waitFor();
    await scroller().evaluate((el) => el.scrollTo(0, el.scrollHeight / 2));
    await page.waitForTimeout(PACE_MS);
    assert.ok((await fromBottom()) > 1000, `still up the thread (${await fromBottom()} px from the bottom)`);
  });

  it('scrolling to the top loads older pages, the row at the top staying where it was, and the live region silent', async () => {
    const said = await page.locator('[data-live]').textContent();
    let release: () => void = () => {};
    let held = 0;
    // Each older page waits until the test has measured what is on screen: the load cannot race the measurement.
    await page.route(/\/messages\?.*before=/, async (route) => {
      held++;
      await new Promise<void>((r) => (release = r));
      await route.continue();
    });
    for (let load = 1; load <= 4; load++) {
      const before = await loaded();
      await scroller().evaluate((el) => el.scrollTo(0, 0));
      await until(page, FRAMES);
      await page.waitForTimeout(PACE_MS);
      const top = (await page.evaluate(TOP_ROW)) as { id: string; top: number };
      await page.locator('[data-more="older"]').waitFor();
      assert.equal(held, load, 'one page asked for');
      release();
      await until(page, `Number(document.querySelector('.messages').dataset.count) > ${before}`);
      await until(page, FRAMES);
      const after = (await page.evaluate(rowTop(top.id))) as number;
      assert.ok(Math.abs(after - top.top) <= 2, `load ${load}: row ${top.id} moved from ${top.top} to ${after}`);
      assert.equal(await loaded(), before + 50);
      assert.ok((await rows()) < 200, 'the DOM stays bounded');
    }
    await page.unroute(/\/messages\?.*before=/);
    assert.equal(await page.locator('[data-live]').textContent(), said, 'scrolling announces nothing');
  });

  it('a live message while scrolled up leaves the view still and shows the pill; tapping it goes to the newest', async () => {
    await scroller().evaluate((el) => el.scrollTo(0, el.scrollHeight / 2));
    await page.waitForTimeout(PACE_MS);
    const top = (await page.evaluate(TOP_ROW)) as { id: string; top: number };
    const live = await post('big', 'a live one while you read older messages, with more words than are announced here');
    const pill = page.locator('[data-pill]');
    await pill.waitFor();
    assert.equal((await pill.textContent())?.trim(), '1 new message ↓');
    const after = (await page.evaluate(rowTop(top.id))) as number;
    assert.ok(Math.abs(after - top.top) <= 2, `the view stayed (${top.top} → ${after})`);
    // The live region names the agent and the first words, once.
    await page
      .locator('[data-live]', { hasText: 'big: a live one while you read older messages, with more words than…' })
      .waitFor();
    await shots.take(page, 'thread-pill');

    await pill.click();
    await until(page, inView(live));
    await pill.waitFor({ state: 'detached' });
    assert.ok((await fromBottom()) < 2, 'at the bottom');
    // At the bottom, the next one is followed, with no pill.
    const next = await post('big', 'and another');
    await until(page, inView(next));
    assert.equal(await pill.count(), 0);
  });

  it("an ask's tag in the inbox opens its thread at the card, highlighted; scrolling down pages in to the live end", async () => {
    seedThread(t, 'asker', 100, 'earlier');
    const held = request(t.tcp, 'POST', '/api/agent/asker/chat/ask', {
      token: t.daemon.agentToken,
      body: {
        question: 'Deploy the hotfix?',
        options: [
          { value: 'yes', label: 'Yes' },
          { value: 'no', label: 'No' },
        ],
        timeout_s: 600,
      },
    });
    // Settled at the end of the test; a failure before that must not leave an unhandled rejection behind.
    held.catch(() => undefined);
    const open = async () => (await t.get('/api/v1/chat/open?agent=asker', z.array(Message)))[0];
    while (!(await open())) await sleep(50);
    const askId = (await open())!.id;
    // The ask is far from the newest page: 300 messages came after it.
    const later = seedThread(t, 'asker', 300, 'after');

    await page.goto(`${t.daemon.appUrl}#/inbox`);
    await page.locator('.action-card', { hasText: 'Deploy the hotfix?' }).locator('a.tag').click();
    assert.match(page.url(), new RegExp(`#/t/asker/m/${askId}$`));
    await until(page, inView(askId));
    assert.equal(await page.locator('.row-focus').count(), 1, 'highlighted');
    assert.ok(
      await page.locator(`.row-focus [data-id="${askId}"]`).count(),
      'the highlighted row is the card opened at',
    );
    await shots.take(page, 'thread-at-message');
    await page.locator('.row-focus').waitFor({ state: 'detached', timeout: 5000 });

    // Scrolling down reaches the live end page by page.
    while (!(await page.evaluate(inView(later.at(-1)!)))) {
      await scroller().evaluate((el) => el.scrollTo(0, el.scrollHeight));
      await page.waitForTimeout(100);
    }
    assert.ok((await loaded()) >= 300, 'every newer page loaded');
    assert.ok((await rows()) < 200);
    // At the live end, live messages go in again.
    const live = await post('asker', 'live again');
    await until(page, inView(live));
    const answered = await t.op('POST', `/api/v1/chat/asker/messages/${askId}/answer`, { values: ['yes'] });
    assert.equal(answered.status, 200, answered.text);
    assert.equal((await held).status, 200);
  });
});
