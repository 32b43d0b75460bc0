// Leo Web's keyboard shortcuts (issue 16): the pure table, then a real browser at desktop size moving between the
// fleet, threads and the inbox without a mouse.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { neighbour, shortcutFor, SHORTCUTS, type KeyPress } from '../../src/web/keys/shortcuts.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { request } from '../helpers/http.js';
import { DESKTOP, launchBrowser, pairedPage, Screenshots } from './browser.js';

const key = (k: string, more: Partial<KeyPress> = {}): KeyPress => ({
  key: k,
  altKey: false,
  ctrlKey: false,
  metaKey: false,
  typing: false,
  ...more,
});

describe('Leo Web shortcuts: the table', () => {
  it('single keys act only outside text fields; Escape and Alt+arrows act everywhere; Ctrl/Cmd never', () => {
    assert.equal(shortcutFor(key('j'), null), 'next-thread');
    assert.equal(shortcutFor(key('j', { typing: true }), null), null);
    assert.equal(shortcutFor(key('?', { typing: true }), null), null);
    assert.equal(shortcutFor(key('Escape', { typing: true }), null), 'close');
    assert.equal(shortcutFor(key('ArrowDown', { altKey: true, typing: true }), null), 'next-thread');
    assert.equal(shortcutFor(key('ArrowUp', { altKey: true }), null), 'previous-thread');
    assert.equal(shortcutFor(key('k', { ctrlKey: true }), null), null);
    assert.equal(shortcutFor(key('/', { metaKey: true }), null), null);
    assert.equal(shortcutFor(key('x'), null), null);
  });

  it('g starts a sequence: g i is the inbox, g f the fleet; i alone is nothing', () => {
    assert.equal(shortcutFor(key('i'), 'g'), 'inbox');
    assert.equal(shortcutFor(key('f'), 'g'), 'fleet');
    assert.equal(shortcutFor(key('i'), null), null);
    assert.equal(shortcutFor(key('i'), 'x'), null);
  });

  it('every action the listener performs is listed in the help, once', () => {
    const actions = SHORTCUTS.map((s) => s.action);
    assert.equal(new Set(actions).size, actions.length);
    for (const press of [key('?'), key('Escape'), key('i'), key('f'), key('j'), key('k'), key('/')])
      for (const prev of [null, 'g']) {
        const a = shortcutFor(press, prev);
        if (a) assert.ok(actions.includes(a), a);
      }
  });

  it('next and previous wrap around the fleet, and start at an end when no thread is open', () => {
    const order = ['assistant', 'den', 'ops'];
    assert.equal(neighbour(order, null, 1), 'assistant');
    assert.equal(neighbour(order, null, -1), 'ops');
    assert.equal(neighbour(order, 'den', 1), 'ops');
    assert.equal(neighbour(order, 'ops', 1), 'assistant');
    assert.equal(neighbour(order, 'assistant', -1), 'ops');
    assert.equal(neighbour(order, 'gone', 1), 'assistant');
    assert.equal(neighbour([], null, 1), null);
  });
});

describe('Leo Web shortcuts: in the browser', () => {
  let t: TestDaemon;
  let browser: Browser;
  let page: Page;
  const shots = new Screenshots();

  before(async () => {
    [t, browser] = await Promise.all([
      startTestDaemon({ config: 'templates:\n  cat: { harness: shell, command: "exec cat" }\n' }),
      launchBrowser(),
    ]);
    for (const name of ['assistant', 'den']) {
      const r = await request(t.tcp, 'POST', '/api/v1/agents/spawn', {
        token: t.daemon.operatorToken,
        body: { template: 'cat', name },
      });
      assert.equal(r.status, 201, r.text);
    }
    ({ page } = await pairedPage(browser, t, 'laptop'));
    await page.setViewportSize(DESKTOP);
    await page.locator('[data-agent="den"]').waitFor();
  });
  after(async () => {
    await browser?.close();
    await t?.stop();
  });

  const hash = () => page.evaluate('location.hash') as Promise<string>;

  it('? shows the shortcuts and Escape closes them; j/k and Alt+arrows walk the threads; g i opens the inbox; Escape goes back', async () => {
    await page.keyboard.press('?');
    const dialog = page.locator('dialog.shortcuts');
    await dialog.waitFor({ state: 'visible' });
    assert.match(await dialog.innerText(), /Next agent's thread/);
    await shots.take(page, 'shortcuts');
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'hidden' });

    await page.keyboard.press('j');
    await page.locator('[data-thread="assistant"]').waitFor();
    await page.keyboard.press('j');
    await page.locator('[data-thread="den"]').waitFor();
    await page.keyboard.press('Alt+ArrowDown');
    await page.locator('[data-thread="assistant"]').waitFor();
    await page.keyboard.press('k');
    await page.locator('[data-thread="den"]').waitFor();

    await page.keyboard.press('g');
    await page.keyboard.press('i');
    await page.locator('[data-screen="inbox"]').waitFor();
    assert.equal(await hash(), '#/inbox');
    await page.keyboard.press('Escape');
    await page.waitForFunction('location.hash === "#/"');
    await page.locator('[data-screen="inbox"]').waitFor({ state: 'detached' });
  });

  it('the help button opens the same list; typing in a field is never taken for a shortcut', async () => {
    await page.locator('.help-link').click();
    await page.locator('dialog.shortcuts').waitFor({ state: 'visible' });
    await page.locator('dialog.shortcuts button', { hasText: 'Close' }).click();
    await page.locator('dialog.shortcuts').waitFor({ state: 'hidden' });
    // A text field on the page: j and ? typed into it stay text and move nowhere.
    await page.evaluate(`(() => {
      const f = document.createElement('input');
      f.id = 'probe';
      document.body.append(f);
    })()`);
    await page.locator('#probe').focus();
    await page.keyboard.type('j?k');
    assert.equal(await page.locator('#probe').inputValue(), 'j?k');
    assert.equal(await hash(), '#/');
    assert.equal(await page.locator('dialog.shortcuts').isVisible(), false);
  });
});
