// Issue 27: the live terminal on a real phone (mobile viewport, touch, 3x screen), for an agent whose pane is as wide
// as Leo's agents' panes (200 columns): the page stays the phone's width, the terminal's controls and key bar stay on
// screen, and the pane's last column is reached by scrolling the terminal box sideways.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { systemClock } from '../../src/core/clock.js';
import { paneText, startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { request } from '../helpers/http.js';
import { launchBrowser, pairedPage, Screenshots } from './browser.js';

// A full pane (more lines than its 50 rows), its last line 198 columns of a 200-column pane, the end marked.
const CONFIG = `templates:
  wide: { harness: shell, command: "seq 1 60; printf 'BEGIN%0186dLASTCOL\\\\n' 0; exec cat" }
`;

type Box = { left: number; right: number; top: number; bottom: number };

/** Where the page's parts are, in the visual viewport's terms (what the phone shows). */
async function measure(page: Page) {
  return page.evaluate(() => {
    const g = globalThis as any;
    const box = (el: any): Box => {
      const r = el.getBoundingClientRect();
      return { left: r.left, right: r.right, top: r.top, bottom: r.bottom };
    };
    const term = g.document.querySelector('.term');
    return {
      viewport: { width: g.innerWidth, height: g.innerHeight, scale: g.visualViewport.scale },
      pageWidth: g.document.documentElement.scrollWidth,
      switchBox: box(g.document.querySelector('.term-switch')),
      keys: [...g.document.querySelectorAll('.keybar button')].map(box),
      term: { box: box(term), scrollWidth: term.scrollWidth, clientWidth: term.clientWidth },
      composer: box(g.document.querySelector('.composer')),
    };
  });
}

const inside = (b: Box, width: number, height: number) =>
  b.left >= 0 && b.right <= width + 0.5 && b.top >= 0 && b.bottom <= height + 0.5;

describe('Leo Web: the live terminal on a phone', () => {
  let t: TestDaemon;
  let browser: Browser;
  let page: Page;
  const shots = new Screenshots();

  before(async () => {
    [t, browser] = await Promise.all([startTestDaemon({ config: CONFIG, clock: systemClock }), launchBrowser()]);
    const r = await request(t.tcp, 'POST', '/api/v1/agents/spawn', {
      token: t.daemon.operatorToken,
      body: { template: 'wide', name: 'wide' },
    });
    assert.equal(r.status, 201, r.text);
    ({ page } = await pairedPage(browser, t, 'phone', { mobile: true }));
  });
  after(async () => {
    await browser?.close();
    await t?.stop();
  });

  it('keeps the page, the switch and the key bar on screen; the last column scrolls into view', async () => {
    assert.match(paneText(t.home, 'wide'), /LASTCOL/);
    await page.locator('[data-agent="wide"] .agent-link').click();
    await page.locator('.term-toggle').click();
    const term = page.locator('[data-terminal="wide"][data-state="live"]');
    await term.locator('.term-row', { hasText: 'LASTCOL' }).waitFor();
    await term.locator('.term-switch input').check();
    await term.locator('.keybar').waitFor();
    await page.screenshot({ path: `${shots.dir}/terminal-phone-mobile.png` });
    const m = await measure(page);
    console.log(`# ${JSON.stringify(m)}`);
    const { width, height } = m.viewport;
    assert.equal(m.viewport.scale, 1, 'the phone does not zoom the page out');
    assert.ok(m.pageWidth <= width, `the page is ${m.pageWidth} px wide on a ${width} px phone`);
    assert.ok(inside(m.switchBox, width, height), `the typing switch is on screen: ${JSON.stringify(m.switchBox)}`);
    assert.equal(m.keys.length, 11);
    for (const k of m.keys) assert.ok(inside(k, width, height), `a key is off screen: ${JSON.stringify(k)}`);
    for (const k of m.keys) assert.ok(k.bottom <= m.composer.top + 0.5, 'no key under the composer');
    assert.ok(m.term.box.right <= width + 0.5, 'the terminal box ends at the screen edge');
    assert.ok(m.term.scrollWidth > m.term.clientWidth, 'the wide pane scrolls inside its box');
    // Swipe the box to its end: the last column's marker shows inside the box, its padding kept (not flush with the glass).
    await page.locator('.term').evaluate((el: any) => (el.scrollLeft = el.scrollWidth));
    const marker = await page.evaluate(() => {
      const g = globalThis as any;
      const row = [...g.document.querySelectorAll('.term-row')].find((r: any) => r.textContent.includes('LASTCOL'));
      const range = g.document.createRange();
      const text = row.firstChild.firstChild;
      const at = text.textContent.indexOf('LASTCOL');
      range.setStart(text, at);
      range.setEnd(text, at + 'LASTCOL'.length);
      const r = range.getBoundingClientRect();
      return { left: r.left, right: r.right, top: r.top, bottom: r.bottom };
    });
    await page.screenshot({ path: `${shots.dir}/terminal-phone-mobile-scrolled.png` });
    const tb = m.term.box;
    assert.ok(
      marker.left >= tb.left && marker.right <= Math.min(tb.right, width) - 6 && marker.bottom <= tb.bottom,
      `the last row's last column is in view, clear of the edge, once scrolled: ${JSON.stringify(marker)} in ${JSON.stringify(tb)}`,
    );
    await shots.take(page, 'terminal-phone');
  });
});
