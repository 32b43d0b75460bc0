// Attachments in Leo Web's thread (issue 16), from the real daemon: an agent's file is a download button whose bytes
// arrive through the authenticated client, its image shows inline, and once the daemon's pruner has removed a file
// past chat.attachment_retention the thread says it was pruned instead of offering it.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Browser, Page } from 'playwright-core';
import type { ManualClock } from '../../src/core/clock.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { request } from '../helpers/http.js';
import { until } from '../helpers/wait.js';
import { launchBrowser, pairedPage, Screenshots } from './browser.js';

// A 1×1 PNG.
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
  'base64',
);

describe('Leo Web: attachments', () => {
  let t: TestDaemon;
  let browser: Browser;
  let page: Page;
  const shots = new Screenshots();
  let notes = '';
  let dot = '';

  before(async () => {
    [t, browser] = await Promise.all([
      startTestDaemon({ config: 'templates:\n  cat: { harness: shell, command: "exec cat" }\n' }),
      launchBrowser(),
    ]);
    const spawned = await t.op('POST', '/api/v1/agents/spawn', { template: 'cat', name: 'den' });
    assert.equal(spawned.status, 201, spawned.text);
    const dir = fs.mkdtempSync(path.join(t.home, 'files-'));
    notes = path.join(dir, 'release notes.txt');
    dot = path.join(dir, 'dot.png');
    fs.writeFileSync(notes, 'v2: faster, safer\n');
    fs.writeFileSync(dot, PNG);
    const posted = await request(t.tcp, 'POST', '/api/agent/den/chat/post', {
      token: t.daemon.agentToken,
      body: { text: 'Here you go', files: [notes, dot] },
    });
    assert.equal(posted.status, 200, posted.text);
    ({ page } = await pairedPage(browser, t, 'phone'));
  });
  after(async () => {
    await browser?.close();
    await t?.stop();
  });

  it('a file downloads with its name and bytes; an image shows inline', async () => {
    await page.locator('[data-agent="den"] .agent-link').click();
    const file = page.locator('.att-file', { hasText: 'release notes.txt' });
    await file.waitFor();
    const img = page.locator('img.att-img[alt="dot.png"]');
    await img.waitFor();
    assert.match(
      (await img.getAttribute('src')) ?? '',
      /^blob:/,
      'through the authenticated client, no token in a URL',
    );
    const [download] = await Promise.all([page.waitForEvent('download'), file.click()]);
    assert.equal(download.suggestedFilename(), 'release notes.txt');
    // Read as a stream: the run's shared browser is connected to remotely, where a download has no local path.
    const bytes: Buffer[] = [];
    for await (const chunk of await download.createReadStream()) bytes.push(chunk as Buffer);
    assert.equal(Buffer.concat(bytes).toString('utf8'), 'v2: faster, safer\n');
    await shots.take(page, 'thread-attachments');
  });

  it('an SVG or an HTML page the agent sends is a download typed as bytes, never drawn (issue 28)', async () => {
    const dir = fs.mkdtempSync(path.join(t.home, 'files-'));
    const svg = path.join(dir, 'logo.svg');
    const html = path.join(dir, 'page.html');
    fs.writeFileSync(svg, '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>');
    fs.writeFileSync(html, '<!doctype html><script>alert(1)</script>');
    const posted = await request(t.tcp, 'POST', '/api/agent/den/chat/post', {
      token: t.daemon.agentToken,
      body: { text: 'Two documents', files: [svg, html] },
    });
    assert.equal(posted.status, 200, posted.text);
    for (const name of ['logo.svg', 'page.html']) await page.locator('.att-file', { hasText: name }).waitFor();
    assert.equal(await page.locator('img.att-img[alt="logo.svg"]').count(), 0, 'the SVG is not drawn');
    // What the app hands the browser to save: the blob's type, recorded as the link is made.
    await page.evaluate(() => {
      const w = globalThis as any;
      w.blobTypes = [];
      const make = w.URL.createObjectURL.bind(w.URL);
      w.URL.createObjectURL = (b: any) => (w.blobTypes.push(b.type), make(b));
    });
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      page.locator('.att-file', { hasText: 'page.html' }).click(),
    ]);
    assert.equal(download.suggestedFilename(), 'page.html');
    assert.deepEqual(await page.evaluate(() => (globalThis as any).blobTypes), ['application/octet-stream']);
  });

  it('a file the pruner removed reads as pruned, and is offered no more', async () => {
    // The daemon's clock passes the 90-day retention and the pruner's next six-hourly pass.
    (t.clock as ManualClock).advance(91 * 24 * 3600_000);
    // The advance fires millions of timer ticks in one synchronous turn (seconds on a loaded machine); the daemon's
    // HTTP server drops a keep-alive connection idle past 5 s in a timer of its own. Those timers run first, so the
    // next request opens a fresh connection instead of writing to one the server closes as it arrives (ECONNRESET).
    await sleep(0);
    await until(
      'the pruner',
      async () => {
        const r = await t.op('GET', '/api/v1/chat/den/messages');
        const m = r.json.data.messages.find((x: { text: string }) => x.text === 'Here you go');
        return m.attachments.every((a: { available: boolean }) => !a.available);
      },
      10_000,
    );
    await page.reload();
    await page.locator('.att-pruned', { hasText: 'release notes.txt · pruned' }).waitFor();
    await page.locator('.att-pruned', { hasText: 'dot.png · pruned' }).waitFor();
    assert.equal(await page.locator('.att-file').count(), 0);
    assert.equal(await page.locator('img.att-img').count(), 0);
  });
});
