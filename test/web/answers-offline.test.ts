// Answers to cards from a device that cannot reach the daemon (issue 27): Allow tapped offline waits in the answer
// outbox, says so in plain words, and goes once when back; an answer whose request fails while the stream is live
// is retried, and one whose retry is never answered is not held back by it; a queued answer the card outlived
// (another device answered first) says it was answered elsewhere.
// Permission prompts come from the real `leo hook permission-request`.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { launchBrowser, pairedPage, permissionRequest, Screenshots } from './browser.js';

const CONFIG = 'templates:\n  cat: { harness: shell, command: "exec cat" }\n';
/** A person reads a card before answering it. */
const PACE_MS = 1500;

describe('Leo Web: answers while the daemon cannot be reached', () => {
  let t: TestDaemon;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  const shots = new Screenshots();
  const answerPosts: string[] = [];
  const hook = (agent: string, command: string) => permissionRequest(t, agent, command);
  const decision = (stdout: string) => JSON.parse(stdout).hookSpecificOutput.decision.behavior as string;
  /**
   * A finger on a card's button: a pointer click at its centre, found by the page itself, once the button is what a
   * person sees there (a row the list has not measured yet is hidden, and one being laid out still moves). (Playwright's
   * locator actions here waited for ever to resolve a button that was in the DOM and visible, once the context had
   * been offline; page.evaluate and the mouse were unaffected.)
   */
  const tap = async (p: Page, text: string, button: string) => {
    const find = () =>
      p.evaluate(
        ([text, button]) => {
          const doc = (globalThis as any).document;
          const cards = [...doc.querySelectorAll('[data-thread] .action-card')] as any[];
          const card = cards.find((c) => c.textContent.includes(text));
          const el = [...(card?.querySelectorAll('button') ?? [])].find(
            (x: any) => x.textContent.trim() === button,
          ) as any;
          if (!el) return null;
          const r = el.getBoundingClientRect();
          const at = { x: r.x + r.width / 2, y: r.y + r.height / 2 };
          return el.contains(doc.elementFromPoint(at.x, at.y)) ? at : null;
        },
        [text, button] as const,
      );
    const end = Date.now() + 10_000;
    let b = await find();
    for (;;) {
      await p.waitForTimeout(50);
      const again = await find();
      if (b && again && b.x === again.x && b.y === again.y) break;
      if (Date.now() > end) throw new Error(`no "${button}" to tap on the card "${text}"`);
      b = again;
    }
    await p.mouse.click(b.x, b.y);
  };
  const card = (p: Page, text: string) => p.locator('[data-thread="den"] .action-card', { hasText: text });

  before(async () => {
    [t, browser] = await Promise.all([startTestDaemon({ config: CONFIG }), launchBrowser()]);
    assert.equal((await t.op('POST', '/api/v1/agents/spawn', { template: 'cat', name: 'den' })).status, 201);
    ({ context, page } = await pairedPage(browser, t, 'phone'));
    page.on('request', (r) => r.url().endsWith('/answer') && answerPosts.push(r.url()));
    await page.goto(`${t.daemon.appUrl}#/t/den`);
    await page.locator('[data-thread="den"] .composer').waitFor();
  });
  after(async () => {
    await browser?.close();
    await t?.stop();
  });

  it('a card stays on screen when the thread cannot be marked read (the network dropped just after it came)', async () => {
    // What a phone losing its signal as a card arrives meets: the read marker the thread sends after a new message
    // fails. The thread keeps what it shows; the marker goes with the next one.
    await page.route('**/read', (route) => route.abort('internetdisconnected'));
    const held = hook('den', 'make lint');
    const prompt = card(page, 'make lint');
    await prompt.getByRole('button', { name: 'Allow' }).waitFor();
    await page.waitForTimeout(PACE_MS);
    assert.equal(await prompt.count(), 1, 'the card is still there');
    assert.equal(await page.locator('[data-thread="den"] .empty.error').count(), 0, 'no error in its place');
    await page.unroute('**/read');
    await tap(page, 'make lint', 'Allow');
    assert.equal(decision(await held), 'allow');
  });

  it('Allow tapped offline waits, says it was not sent yet in plain words, and goes once when back', async () => {
    const held = hook('den', 'make deploy');
    const prompt = card(page, 'make deploy');
    await prompt.getByRole('button', { name: 'Allow' }).waitFor();
    await context.setOffline(true);
    await page.locator('[data-connection="offline"]:visible').waitFor();
    await page.waitForTimeout(PACE_MS);
    await tap(page, 'make deploy', 'Allow');
    const status = prompt.locator('[data-answer="queued"]');
    await status.waitFor();
    assert.match(await status.innerText(), /Not sent yet: Allow goes when Leo can be reached again/);
    assert.equal(await page.getByText('Failed to fetch').count(), 0, 'no raw network error');
    assert.equal(await prompt.getByRole('button', { name: 'Deny' }).isDisabled(), true, 'one answer at a time');
    await shots.take(page, 'answer-queued-offline');

    await page.waitForTimeout(PACE_MS);
    await context.setOffline(false);
    await prompt.locator('.settled', { hasText: 'Allowed from chat' }).waitFor({ timeout: 20_000 });
    assert.equal(decision(await held), 'allow');
    assert.equal(await prompt.locator('[data-answer]').count(), 0);
    const posted = answerPosts.length;
    await page.waitForTimeout(PACE_MS);
    assert.equal(answerPosts.length, posted, 'sent once');
  });

  it('an answer whose request cannot reach the daemon while the stream is live is retried', async () => {
    const held = hook('den', 'make release');
    const prompt = card(page, 'make release');
    await prompt.getByRole('button', { name: 'Deny' }).waitFor();
    // The daemon is unreachable for this request only (as during a restart's first moments).
    await page.route('**/answer', (route) => route.abort('connectionrefused'));
    await page.waitForTimeout(PACE_MS);
    await tap(page, 'make release', 'Deny');
    await prompt.locator('[data-answer="queued"]', { hasText: 'Deny goes when' }).waitFor();
    await page.unroute('**/answer');
    await prompt.locator('.settled', { hasText: 'Denied from chat' }).waitFor({ timeout: 20_000 });
    assert.equal(decision(await held), 'deny');
  });

  it('a retry the daemon never answers is abandoned, and the answer goes all the same', async () => {
    const held = hook('den', 'make docs');
    const prompt = card(page, 'make docs');
    await prompt.getByRole('button', { name: 'Deny' }).waitFor();
    // The first request cannot reach the daemon; the second is never answered (sent on a connection that died without
    // a word: waited on, it would hold every queued answer behind it); the ones after go through.
    let requests = 0;
    await page.route('**/answer', (route) => {
      requests++;
      if (requests === 1) return route.abort('connectionrefused');
      if (requests > 2) return route.continue();
    });
    await page.waitForTimeout(PACE_MS);
    await tap(page, 'make docs', 'Deny');
    await prompt.locator('[data-answer="queued"]', { hasText: 'Deny goes when' }).waitFor();
    await prompt.locator('.settled', { hasText: 'Denied from chat' }).waitFor({ timeout: 20_000 });
    assert.equal(decision(await held), 'deny');
    await page.unroute('**/answer');
  });

  it('a queued answer that arrives after another device answered says it was answered elsewhere', async () => {
    const held = hook('den', 'make clean');
    const other = (await pairedPage(browser, t, 'laptop')).page;
    await other.goto(`${t.daemon.appUrl}#/t/den`);
    const prompt = card(page, 'make clean');
    await prompt.getByRole('button', { name: 'Allow' }).waitFor();
    await context.setOffline(true);
    await page.locator('[data-connection="offline"]:visible').waitFor();
    await tap(page, 'make clean', 'Allow');
    await prompt.locator('[data-answer="queued"]').waitFor();

    await page.waitForTimeout(PACE_MS);
    await card(other, 'make clean').getByRole('button', { name: 'Deny' }).click();
    assert.equal(decision(await held), 'deny');
    await context.setOffline(false);
    const note = prompt.locator('[data-answer="elsewhere"]');
    await note.waitFor({ timeout: 20_000 });
    assert.match(await note.innerText(), /Answered elsewhere before your answer arrived: yours was not used/);
    await prompt.locator('.settled', { hasText: 'Denied from chat' }).waitFor();
    await shots.take(page, 'answer-elsewhere');
    await other.context().close();
  });

  it('a queued answer can be taken back before it goes', async () => {
    const held = hook('den', 'make bench');
    const prompt = card(page, 'make bench');
    await prompt.getByRole('button', { name: 'Allow' }).waitFor();
    await context.setOffline(true);
    await page.locator('[data-connection="offline"]:visible').waitFor();
    await tap(page, 'make bench', 'Allow');
    // The owner reads "Not sent yet" and changes their mind; the card settles back to its buttons.
    const queued = prompt.locator('[data-answer="queued"]');
    await queued.waitFor();
    await page.waitForTimeout(PACE_MS);
    await tap(page, 'make bench', 'Cancel');
    await queued.waitFor({ state: 'detached' });
    assert.equal(await prompt.getByRole('button', { name: 'Allow' }).isDisabled(), false, 'answerable again');
    const posted = answerPosts.length;
    await context.setOffline(false);
    await page.locator('[data-connection="live"]:visible').waitFor();
    await page.waitForTimeout(PACE_MS);
    assert.equal(answerPosts.length, posted, 'nothing sent');
    await tap(page, 'make bench', 'Allow');
    await prompt.locator('.settled', { hasText: 'Allowed from chat' }).waitFor();
    assert.equal(decision(await held), 'allow');
  });
});
