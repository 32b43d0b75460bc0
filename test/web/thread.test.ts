// Leo Web's thread view in a real browser (issue 16): Debian's chromium driven by playwright-core against the real
// daemon with shell agents (cat). Opens a thread from the fleet, watches a sent message go pending → delivered and an
// agent's post arrive live, pages up through a long thread, shows an image the agent posted, renders markup as text,
// and sees another device's badge clear when this one reads the thread.
import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { WEB_ROOT } from '../../src/http/web-routes.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { request } from '../helpers/http.js';
import { launchBrowser, pairedPage, Screenshots } from './browser.js';

const CONFIG = 'templates:\n  cat: { harness: shell, command: "exec cat" }\n';

describe('Leo Web: the thread view', () => {
  let t: TestDaemon;
  let browser: Browser;
  let page: Page;
  const shots = new Screenshots();
  const post = async (agent: string, body: { text?: string; files?: string[] }) => {
    const r = await request(t.tcp, 'POST', `/api/agent/${agent}/chat/post`, { token: t.daemon.agentToken, body });
    assert.equal(r.status, 200, r.text);
    return { id: r.json.data.message_id as string };
  };
  const spawn = async (name: string) => {
    const r = await t.op('POST', '/api/v1/agents/spawn', { template: 'cat', name });
    assert.equal(r.status, 201, r.text);
  };
  const msg = (id: string) => page.locator(`.messages [data-id="${id}"]`);

  before(async () => {
    [t, browser] = await Promise.all([startTestDaemon({ config: CONFIG }), launchBrowser()]);
    await Promise.all([spawn('assistant'), spawn('den'), spawn('old')]);
    // A long thread to page through: 120 agent posts, numbered.
    for (let i = 1; i <= 120; i++) await post('old', { text: `old message ${i}` });
    ({ page } = await pairedPage(browser, t, 'phone'));
  });
  after(async () => {
    await browser?.close();
    await t?.stop();
  });

  it('tapping an agent opens its thread; a message sent goes pending → delivered; an agent post appears live; back returns to the fleet', async () => {
    await page.locator('[data-agent="den"] .agent-link').click();
    await page.locator('[data-thread="den"]').waitFor();
    assert.match(page.url(), /#\/t\/den$/);
    await page.locator('[data-thread="den"] .empty', { hasText: 'No messages yet' }).waitFor();
    // Every state a message shows, as the page saw it (the pending one may last only milliseconds).
    await page.evaluate(`(() => {
      window.__states = [];
      new MutationObserver(() => {
        for (const el of document.querySelectorAll('.messages [data-state]'))
          window.__states.push(el.getAttribute('data-id') + ':' + el.getAttribute('data-state'));
      }).observe(document.body, { subtree: true, childList: true, attributes: true });
    })()`);
    const sent = await t.op('POST', '/api/v1/chat/den/messages', { text: 'hello den' });
    assert.equal(sent.status, 201, sent.text);
    const id = sent.json.data.id as string;
    await page.locator(`.messages [data-id="${id}"][data-state="delivered"]`).waitFor();
    const seen = (await page.evaluate('window.__states')) as string[];
    assert.ok(seen.includes(`${id}:pending`), `pending shown first: ${seen.join(' ')}`);
    assert.equal(
      await msg(id)
        .getAttribute('class')
        .then((c) => c?.includes('msg-in')),
      true,
      "the owner's, on the right",
    );
    assert.equal(await msg(id).locator('.msg-state').textContent(), ' · Delivered');

    const reply = await post('den', { text: 'hi owner\nsecond line' });
    await msg(reply.id).waitFor();
    assert.match((await msg(reply.id).getAttribute('class')) ?? '', /msg-out/);
    assert.equal(await msg(reply.id).locator('.msg-text').innerText(), 'hi owner\nsecond line');

    await page.goBack();
    await page.locator('[data-agent="den"]').waitFor();
    assert.equal(await page.locator('[data-thread]').count(), 0);
  });

  it('scrolling to the top loads older pages and keeps the reading position', async () => {
    await page.goto(`${t.daemon.appUrl}#/t/old`);
    // The list is virtualized: `data-count` is how many messages it holds, the DOM only has those near the viewport.
    const list = page.locator('.messages');
    const loadedCount = () => list.getAttribute('data-count').then(Number);
    await page.locator('.messages[data-count="50"]').waitFor();
    await page.locator('.messages .msg-text', { hasText: /^old message 120$/ }).waitFor();
    assert.equal(await page.locator('.messages .msg-text').last().textContent(), 'old message 120');
    // Opened at the bottom.
    await page.waitForTimeout(100);
    const atBottom = await list.evaluate((el) => el.scrollHeight - el.clientHeight - el.scrollTop);
    assert.ok(atBottom < 2, `scrolled to the newest (${atBottom}px from the bottom)`);

    await list.evaluate((el) => el.scrollTo(0, 0));
    await page.locator('.messages[data-count="100"]').waitFor();
    const first = page.locator('.messages .msg-text', { hasText: /^old message 71$/ });
    // The message that was at the top is still where it was: the older page went in above it.
    const top = await first.evaluate((el) => el.getBoundingClientRect().top);
    const listTop = await list.evaluate((el) => el.getBoundingClientRect().top);
    assert.ok(top - listTop >= 0 && top - listTop < 200, `message 71 kept in view (${top - listTop}px)`);
    assert.equal(await loadedCount(), 100);
    await list.evaluate((el) => el.scrollTo(0, 0));
    await page.locator('.messages[data-count="120"]').waitFor();
    await list.evaluate((el) => el.scrollTo(0, 0));
    await page.locator('.messages .msg-text', { hasText: /^old message 1$/ }).waitFor();
    assert.equal(await page.locator('.messages .msg-text').first().textContent(), 'old message 1');
    await page.locator('[data-more="older"]').waitFor({ state: 'detached' });
  });

  it('an image the agent posts shows inline, fetched with the token; markup in a message renders as text', async () => {
    await page.goto(`${t.daemon.appUrl}#/t/den`);
    await page.locator('[data-thread="den"] .msg').first().waitFor();
    const image = await post('den', { text: 'the icon', files: [path.join(WEB_ROOT, 'icon-192.png')] });
    const img = msg(image.id).locator('img.att-img');
    await img.waitFor();
    assert.match((await img.getAttribute('src')) ?? '', /^blob:/);
    await page.waitForFunction(`document.querySelector('.messages [data-id="${image.id}"] img').naturalWidth === 192`);

    const html = '<img src=x onerror="window.__pwned=1"> <b>bold</b> <script>window.__pwned=2</script>';
    const hostile = await post('den', { text: html });
    const text = msg(hostile.id).locator('.msg-text');
    await text.waitFor();
    assert.equal((await text.textContent())?.trim(), html);
    assert.equal(await text.locator('img, b, script').count(), 0);
    assert.equal(await page.evaluate('window.__pwned === undefined'), true);

    // An agent's markdown is rendered, and only what markdown makes, with safe links only.
    const markdown = await post('den', {
      text: 'Done: **all green**.\n\n```\nnpm test\n```\n\n- [docs](https://example.com/x)\n- [bad](javascript:window.__pwned=3)\n- ![pixel](https://example.com/p.png)',
    });
    const rendered = msg(markdown.id).locator('.msg-md');
    await rendered.waitFor();
    assert.equal(await rendered.locator('strong').textContent(), 'all green');
    assert.equal(await rendered.locator('pre code').textContent(), 'npm test\n');
    const links = await rendered
      .locator('a')
      .evaluateAll((as) => as.map((a) => [a.getAttribute('href'), a.getAttribute('rel')]));
    assert.deepEqual(links, [['https://example.com/x', 'noopener noreferrer']]);
    assert.equal(await rendered.locator('img').count(), 0);
    assert.equal(await page.evaluate('window.__pwned === undefined'), true);
    await shots.take(page, 'thread');
  });

  it('a message posted while the browser was offline is in the open thread after the reconnect', async () => {
    const context = page.context();
    await context.setOffline(true);
    await page.locator('[data-connection="offline"]:visible').waitFor();
    const missed = await post('den', { text: 'while you were away' });
    await context.setOffline(false);
    await page.locator('[data-connection="live"]:visible').waitFor();
    await msg(missed.id).waitFor({ timeout: 3000 });
  });

  it("opening a thread marks it read, and another device's badge follows the chat.read event", async () => {
    await page.goto(t.daemon.appUrl);
    const other = await pairedPage(browser, t, 'laptop');
    try {
      await post('den', { text: 'unread one' });
      await post('den', { text: 'unread two' });
      for (const p of [page, other.page]) await p.locator('[data-agent="den"] [data-unread="2"]').waitFor();
      await shots.take(page, 'fleet-unread');

      await page.locator('[data-agent="den"] .agent-link').click();
      await page.locator('.messages .msg-text', { hasText: 'unread two' }).waitFor();
      for (const p of [page, other.page])
        await p.locator('[data-agent="den"] [data-unread]').waitFor({ state: 'detached', timeout: 3000 });
      const threads = await t.op('GET', '/api/v1/chat/threads');
      assert.equal(threads.json.data.find((th: { agent: string }) => th.agent === 'den').unread, 0);
    } finally {
      await other.context.close();
    }
  });
});
