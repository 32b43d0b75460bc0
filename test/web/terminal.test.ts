// Leo Web's live terminal (issue 17) in a real browser against a real daemon: a shell agent prints coloured output,
// the thread's Terminal shows it in its colours and follows it live; keys pressed from the key bar (once typing is
// switched on) reach the pane; a stopped agent's terminal says it ended.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { systemClock } from '../../src/core/clock.js';
import { terminalLines } from '../../src/web/render/terminal-lines.js';
import { paneText, startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { until } from '../helpers/wait.js';
import { launchBrowser, pairedPage, Screenshots } from './browser.js';

const CONFIG = `templates:
  colours: { harness: shell, command: "printf '\\\\033[31mred alert\\\\033[0m plain \\\\033[1;32mbold green\\\\033[0m\\\\n<b>not markup</b>\\\\n'; exec cat" }
`;

describe('the terminal screen reader', () => {
  it('reads SGR runs into rows of styled text, state carried across rows, markup kept as text', () => {
    const rows = terminalLines('\x1b[31mred\x1b[0m plain\n\x1b[1;32mgreen\nstill green\x1b[0m <b>x</b>\n');
    assert.deepEqual(
      rows.map((r) => r.map((x) => x.text)),
      [['red', ' plain'], ['green'], ['still green', ' <b>x</b>'], []],
    );
    assert.equal(rows[0]![0]!.fg, '187, 0, 0');
    assert.equal(rows[0]![1]!.fg, null);
    assert.equal(rows[2]![0]!.bold, true, 'bold carries to the next row');
    assert.equal(rows[2]![1]!.bold, false);
  });
});

describe('Leo Web: the live terminal', () => {
  let t: TestDaemon;
  let browser: Browser;
  let page: Page;
  const shots = new Screenshots();

  before(async () => {
    // The real clock: the terminal follows the pane in real time, as a person watches it.
    [t, browser] = await Promise.all([startTestDaemon({ config: CONFIG, clock: systemClock }), launchBrowser()]);
    const r = await t.op('POST', '/api/v1/agents/spawn', { template: 'colours', name: 'den' });
    assert.equal(r.status, 201, r.text);
    await until('den to print', () => paneText(t.home, 'den').includes('red alert'), 10_000);
    ({ page } = await pairedPage(browser, t, 'phone'));
  });
  after(async () => {
    await browser?.close();
    await t?.stop();
  });

  it('shows the pane in its colours, as text', async () => {
    await page.locator('[data-agent="den"] .agent-link').click();
    await page.locator('.term-toggle').click();
    const term = page.locator('[data-terminal="den"]');
    await term.locator('.term-row', { hasText: 'red alert' }).waitFor();
    await page.locator('[data-terminal="den"][data-state="live"]').waitFor();
    const red = term.locator('span', { hasText: 'red alert' });
    assert.equal(await red.evaluate((el) => (globalThis as any).getComputedStyle(el).color), 'rgb(187, 0, 0)');
    const bold = term.locator('span', { hasText: 'bold green' });
    assert.equal(await bold.evaluate((el) => (globalThis as any).getComputedStyle(el).fontWeight), '700');
    assert.equal(await term.locator('b').count(), 0, 'the pane never becomes markup');
    assert.match(await term.locator('.term').innerText(), /<b>not markup<\/b>/);
    assert.equal(await term.locator('.keybar').count(), 0, 'no keys until typing is switched on');
    await shots.take(page, 'terminal-read-only');
  });

  it('with typing on, the key bar presses keys in the pane, and the view follows the pane live', async () => {
    const term = page.locator('[data-terminal="den"]');
    await term.locator('.term-switch input').check();
    await term.locator('.keybar').waitFor();
    await term.getByRole('button', { name: 'Press y' }).click();
    await term.getByRole('button', { name: 'Press Enter' }).click();
    // cat echoes the typed y, then prints the line back: two rows of `y` after the printed ones.
    await until('the keys in the pane', () => /^y\ny$/m.test(paneText(t.home, 'den')), 5000);
    await page.waitForFunction(
      () =>
        [...(globalThis as any).document.querySelectorAll('[data-terminal="den"] .term-row')].filter(
          (r: { textContent: string }) => r.textContent === 'y',
        ).length >= 2,
    );
    await shots.take(page, 'terminal-typing');
  });

  it("a stopped agent's terminal says it ended and offers no keys", async () => {
    assert.equal((await t.op('POST', '/api/v1/agents/den/stop')).status, 200);
    const term = page.locator('[data-terminal="den"][data-state="ended"]');
    await term.waitFor();
    assert.equal(await term.locator('.keybar').count(), 0);
    assert.match(await term.locator('.term-note').innerText(), /not running/);
  });
});
