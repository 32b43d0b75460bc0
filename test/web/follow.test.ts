// The thread follows what matters (issue 27): one's own send brings the view back to the newest and the reply to it
// lands in view, wherever the owner had scrolled; and the "new message" pill never covers a card's buttons.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { request } from '../helpers/http.js';
import { until } from '../helpers/wait.js';
import { agentPost, launchBrowser, pairedPage, permissionRequest, Screenshots } from './browser.js';

const CONFIG = 'templates:\n  cat: { harness: shell, command: "exec cat" }\n';
/** A person reads before acting. */
const PACE_MS = 1200;

describe('Leo Web: following the thread', () => {
  let t: TestDaemon;
  let browser: Browser;
  let page: Page;
  const shots = new Screenshots();
  const post = (agent: string, text: string) => agentPost(t, agent, text);
  const held: Promise<unknown>[] = [];
  const permission = (agent: string, command: string) => held.push(permissionRequest(t, agent, command));
  const scroller = () => page.locator('[data-thread] .messages');
  /** Whether a row is wholly inside the list's visible box. */
  const inView = (id: string) =>
    page.evaluate((id) => {
      const doc = (globalThis as any).document;
      const row = doc.querySelector(`.messages [data-id="${id}"]`);
      if (!row) return false;
      const r = row.getBoundingClientRect();
      const box = doc.querySelector('.messages').getBoundingClientRect();
      return r.top >= box.top - 1 && r.bottom <= box.bottom + 1;
    }, id);

  before(async () => {
    [t, browser] = await Promise.all([startTestDaemon({ config: CONFIG }), launchBrowser()]);
    for (const name of ['den', 'ivy']) {
      const r = await request(t.tcp, 'POST', '/api/v1/agents/spawn', {
        token: t.daemon.operatorToken,
        body: { template: 'cat', name },
      });
      assert.equal(r.status, 201, r.text);
    }
    for (let i = 1; i <= 40; i++) await post('den', `earlier line ${i}: ${'words '.repeat(i % 7)}`);
    ({ page } = await pairedPage(browser, t, 'phone'));
  });
  after(async () => {
    await browser?.close();
    await t?.stop();
    await Promise.allSettled(held);
  });

  it("one's own send, made while scrolled up, brings the view to the newest and the reply lands in view", async () => {
    await page.goto(`${t.daemon.appUrl}#/t/den`);
    await page.locator('[data-thread="den"] .composer').waitFor();
    await page.locator('.messages [data-id]').first().waitFor();
    await scroller().evaluate((el) => el.scrollTo(0, el.scrollHeight / 3));
    await page.waitForTimeout(PACE_MS);
    await page.getByLabel('Message to den').fill('what did the build say?');
    await page.getByRole('button', { name: 'Send' }).click();
    await page.locator('.messages .msg-in', { hasText: 'what did the build say?' }).waitFor();
    await page.waitForTimeout(PACE_MS);
    const reply = await post('den', 'The build passed: **42 tests**, no warnings.');
    await until('the reply in view', () => inView(reply), 10_000);
    assert.equal(await page.locator('[data-pill]').count(), 0, 'no pill: the reply is on screen');
  });

  it('while following, a card and the replies after it stay in view', async () => {
    await page.waitForTimeout(PACE_MS);
    permission('den', 'make deploy');
    const card = page.locator('.messages [data-kind="permission"]', { hasText: 'make deploy' });
    await card.waitFor();
    const id = (await card.getAttribute('data-id'))!;
    await until('the card in view', () => inView(id), 10_000);
    const next = await post('den', 'Waiting for your decision on the deploy.');
    await until('the next reply in view', () => inView(next), 10_000);
    // Taken last here: the screenshots' quick resizes can leave the view short of the end (see the report).
    await shots.take(page, 'follow-own-send');
  });

  it("the pill never covers a card's buttons", async () => {
    await page.goto(`${t.daemon.appUrl}#/t/ivy`);
    await page.locator('[data-thread="ivy"] .composer').waitFor();
    for (let i = 1; i <= 12; i++) await post('ivy', `line ${i}`);
    permission('ivy', 'rm -rf build');
    const card = page.locator('.messages [data-kind="permission"]', { hasText: 'rm -rf build' });
    await card.waitFor();
    for (let i = 1; i <= 3; i++) await post('ivy', `after the card ${i}`);
    await page.locator('.messages [data-id]', { hasText: 'after the card 3' }).waitFor();
    await page.waitForTimeout(PACE_MS);
    // The reader scrolls up until the card's buttons sit at the bottom edge of the list, then a message arrives.
    await card.getByRole('button', { name: 'Deny' }).evaluate((b) => b.scrollIntoView({ block: 'end' }));
    await page.waitForTimeout(PACE_MS);
    await post('ivy', 'one more while you read');
    const pill = page.locator('[data-pill]');
    await pill.waitFor();
    // What shows of each button (its box cut to the list's) must not lie under the pill.
    const p = (await pill.boundingBox())!;
    const list = (await scroller().boundingBox())!;
    for (const name of ['Allow', 'Deny']) {
      const b = (await card.getByRole('button', { name }).boundingBox())!;
      const top = Math.max(b.y, list.y);
      const bottom = Math.min(b.y + b.height, list.y + list.height);
      const shown = bottom > top;
      const overlap =
        shown && !(p.x + p.width <= b.x || b.x + b.width <= p.x || p.y >= bottom || p.y + p.height <= top);
      assert.equal(overlap, false, `the pill (${JSON.stringify(p)}) covers ${name} (${JSON.stringify(b)})`);
    }
    await shots.take(page, 'follow-pill-clear-of-card');
  });
});
