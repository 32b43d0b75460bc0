// Leo Web's composer and durable outbox (issue 16) in a real browser against the real daemon with shell agents (cat):
// Enter/Shift+Enter, drafts across threads and reloads, the composer inside a phone's viewport with the keyboard up,
// sends that wait offline through a reload and are delivered once, a lost answer retried under the same client id,
// uploads with progress (picked and dropped) and the daemon's 413, a failed message resent with its attachment, and
// an ask answered inside the thread.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Browser, Page } from 'playwright-core';
import { paneText, startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { request } from '../helpers/http.js';
import { DESKTOP, launchBrowser, pairedPage, Screenshots, watchPage } from './browser.js';
import { MessagePage } from '../../src/wire/message.js';

const MAX_BYTES = 4096;
const CONFIG = `
chat:
  attachment_max_bytes: ${MAX_BYTES}
environments:
  acct: { K: v }
templates:
  cat: { harness: shell, command: "exec cat" }
  needy: { harness: shell, command: "exec cat", environments: [acct] }
`;
/** A person's pace between looking and acting. */
const count = (haystack: string, needle: string) => haystack.split(needle).length - 1;

interface Stored {
  id: string;
  text: string;
  state: string;
  client_id?: string;
  kind: string;
  failure?: string;
  attachments: { id: string; filename: string }[];
}

describe('Leo Web: the composer and the outbox', () => {
  let t: TestDaemon;
  let browser: Browser;
  let page: Page;
  const shots = new Screenshots();
  const spawn = async (name: string, template = 'cat') => {
    const r = await t.op('POST', '/api/v1/agents/spawn', { template, name });
    assert.equal(r.status, 201, r.text);
  };
  const stored = async (agent: string): Promise<Stored[]> =>
    (await t.get(`/api/v1/chat/${agent}/messages?limit=200`, MessagePage)).messages;
  const inbound = async (agent: string) => (await stored(agent)).filter((m) => m.kind !== 'system');
  /** Waits until the pane of `agent` shows `text` (cat echoes what it is typed: each delivery shows it twice). */
  const inPane = async (agent: string, text: string) => {
    for (let i = 0; i < 100 && !paneText(t.home, agent, 200).includes(text); i++) await sleep(100);
    return count(paneText(t.home, agent, 200), text);
  };
  const context = () => page.context();
  const box = () => page.locator('.composer textarea');
  const open = async (agent: string) => {
    await page.goto(`${t.daemon.appUrl}#/t/${agent}`);
    await page.locator(`[data-thread="${agent}"] .composer textarea`).waitFor();
    await page.locator('[data-connection="live"]').first().waitFor({ state: 'attached' });
  };
  const draftIs = async (agent: string, text: string) => {
    const area = page.locator(`[data-thread="${agent}"] textarea`);
    for (let i = 0; i < 50; i++) {
      if ((await area.inputValue().catch(() => null)) === text) return;
      await sleep(100);
    }
    assert.equal(await area.inputValue(), text, `${agent}'s draft`);
  };
  const delivered = (text: string) =>
    page.locator('.messages .msg-in[data-state="delivered"]', { hasText: text }).waitFor();

  before(async () => {
    [t, browser] = await Promise.all([startTestDaemon({ config: CONFIG }), launchBrowser()]);
    await Promise.all([
      spawn('den'),
      spawn('ivy'),
      spawn('off'),
      spawn('lost'),
      spawn('files'),
      spawn('ask'),
      spawn('kept'),
    ]);
    ({ page } = await pairedPage(browser, t, 'desktop'));
    await page.setViewportSize(DESKTOP);
  });
  after(async () => {
    await browser?.close();
    await t?.stop();
  });

  it('Enter sends on a desktop, Shift+Enter is a newline; the draft survives switching threads and a reload', async () => {
    await open('den');
    await shots.take(page, 'composer-empty');
    await box().click();
    await page.keyboard.type('first line');
    await page.keyboard.press('Shift+Enter');
    await page.keyboard.type('second line');
    assert.equal(await box().inputValue(), 'first line\nsecond line');
    await shots.take(page, 'composer-text');
    await page.keyboard.press('Enter');
    await delivered('second line');
    assert.equal(await box().inputValue(), '', 'the box empties on send');
    const [m] = await inbound('den');
    assert.equal(m!.text, 'first line\nsecond line');
    assert.match(m!.client_id ?? '', /^[0-9a-f-]{36}$/, 'sent under a client id');

    await box().fill('half a thought for den');
    await page.locator('[data-agent="ivy"] .agent-link').click();
    await page.locator('[data-thread="ivy"] .composer textarea').waitFor();
    assert.equal(await box().inputValue(), '', "ivy's thread has its own draft");
    await box().fill('something for ivy');
    await sleep(400);
    await page.locator('[data-agent="den"] .agent-link').click();
    await draftIs('den', 'half a thought for den');
    await page.reload();
    await draftIs('den', 'half a thought for den');
    await page.locator('[data-agent="ivy"] .agent-link').click();
    await draftIs('ivy', 'something for ivy');
    await box().fill('');
  });

  it('on a phone the composer stays in view with the keyboard up; Enter is a newline there and the button sends', async () => {
    // A coarse pointer is a property of the browser context: pair a touch phone of its own.
    const touch = await browser.newContext({ viewport: { width: 360, height: 640 }, hasTouch: true, isMobile: true });
    const issued = await t.op('POST', '/api/v1/devices/pairing-codes', { name: 'touch' });
    assert.equal(issued.status, 201, issued.text);
    const tp = watchPage(await touch.newPage());
    await tp.goto(issued.json.data.url);
    await tp.locator('[data-connection="live"]').waitFor();
    await tp.goto(`${t.daemon.appUrl}#/t/den`);
    const area = tp.locator('.composer textarea');
    await area.waitFor();
    assert.equal(await tp.evaluate(`matchMedia('(pointer: coarse)').matches`), true);
    for (const height of [640, 340]) {
      await tp.setViewportSize({ width: 360, height });
      await area.tap();
      const r = await tp.locator('.composer').boundingBox();
      assert.ok(r && r.y >= 0 && r.y + r.height <= height + 0.5, `composer inside 360x${height}: ${JSON.stringify(r)}`);
      const send = await tp.getByRole('button', { name: 'Send' }).boundingBox();
      assert.ok(send && send.width >= 44 && send.height >= 44, 'a 44 px target');
    }
    await area.fill('on the phone');
    await area.press('Enter');
    assert.equal(await area.inputValue(), 'on the phone\n', 'Enter is a newline with a coarse pointer');
    await tp.getByRole('button', { name: 'Send' }).tap();
    await tp.locator('.messages .msg-in[data-state="delivered"]', { hasText: 'on the phone' }).waitFor();
    await touch.close();
  });

  it('sends made offline wait in the outbox through a reload, then are stored and delivered exactly once', async () => {
    await open('off');
    // The stream drops (offline); the API stays blocked through a reload, which needs the page itself to load.
    await page.route('**/api/**', (route) => route.abort('internetdisconnected'));
    try {
      await context().setOffline(true);
      await page.locator('[data-connection="offline"]').first().waitFor({ state: 'attached' });
      for (const text of ['offline one', 'offline two']) {
        // The second takes a file picked offline: its bytes wait in the outbox with it.
        if (text === 'offline two') {
          await page
            .locator('[data-picker]')
            .setInputFiles([{ name: 'offline.txt', mimeType: 'text/plain', buffer: Buffer.from('picked offline\n') }]);
          await page.locator('.staged-file[data-staged="offline.txt"][data-state="waiting"]').waitFor();
        }
        await box().fill(text);
        await sleep(300);
        await page.keyboard.press('Enter');
      }
      const waiting = page.locator('.msg-outbox[data-state="waiting"]');
      await waiting.nth(1).waitFor();
      assert.deepEqual(await waiting.locator('.msg-text').allTextContents(), ['offline one', 'offline two']);
      assert.match((await page.locator('[data-composer-status]').textContent()) ?? '', /2 waiting to send/);
      await shots.take(page, 'outbox-offline');
      await context().setOffline(false);
      await page.reload();
      await waiting.nth(1).waitFor();
      assert.equal(await waiting.count(), 2, 'still waiting after the reload');
      assert.equal((await inbound('off')).length, 0, 'nothing reached the daemon');
      // Still offline, then back: the app hears `online` and reconnects at once.
      await context().setOffline(true);
      await sleep(500);
    } finally {
      await page.unroute('**/api/**');
      await context().setOffline(false);
    }
    await delivered('offline two');
    await delivered('offline one');
    assert.equal(await page.locator('.msg-outbox').count(), 0, 'the outbox bubbles gave way');
    assert.equal(await page.locator('.msg-in', { hasText: 'offline one' }).count(), 1, 'never both');
    const all = await inbound('off');
    assert.deepEqual(
      all.map((m) => [m.text, m.attachments.map((a) => a.filename)]),
      [
        ['offline one', []],
        ['offline two', ['offline.txt']],
      ],
    );
    assert.equal(await inPane('off', 'offline one'), await inPane('off', 'offline two'));
    const once = await inPane('off', 'offline one');
    assert.ok(once >= 1 && once <= 2, `delivered once (cat shows a line at most twice): ${once}`);
    await sleep(1000);
    assert.equal(await inPane('off', 'offline one'), once, 'and never again');
  });

  it('a send whose answer is lost is retried under the same client id: one message stored and delivered', async () => {
    await open('lost');
    let lost = 0;
    await page.route('**/api/v1/chat/lost/messages', async (route) => {
      if (route.request().method() !== 'POST' || lost > 0) return route.fallback();
      lost++;
      // The daemon gets the request and stores the message; the app never hears back.
      await route.fetch();
      await route.abort('connectionreset');
    });
    try {
      await box().fill('said once');
      await page.keyboard.press('Enter');
      await delivered('said once');
      await page.locator('.msg-outbox').waitFor({ state: 'detached' });
      assert.equal(lost, 1);
      const all = await inbound('lost');
      assert.equal(all.length, 1, `one message stored: ${JSON.stringify(all)}`);
      const n = await inPane('lost', 'said once');
      await sleep(1500);
      assert.equal(await inPane('lost', 'said once'), n, 'not typed a second time');
      assert.ok(n >= 1 && n <= 2, `${n}`);
      assert.equal(await page.locator('.msg-in', { hasText: 'said once' }).count(), 1);
    } finally {
      await page.unroute('**/api/v1/chat/lost/messages');
    }
  });

  it('files picked and dropped upload with progress and go with the message; one over the limit shows the 413', async () => {
    await open('files');
    // Uploads held a moment, so the two in progress can be seen; the first picked longer, so it finishes last and
    // the message must still list it first.
    await page.route('**/api/v1/chat/uploads**', async (route) => {
      await sleep(route.request().url().includes('filename=notes.txt') ? 3000 : 1500);
      await route.fallback();
    });
    await page.locator('[data-picker]').setInputFiles([
      { name: 'notes.txt', mimeType: 'text/plain', buffer: Buffer.from('some notes\n') },
      { name: 'data.csv', mimeType: 'text/csv', buffer: Buffer.from('a,b\n1,2\n') },
    ]);
    await page.locator('.staged-file[data-state="uploading"]').nth(1).waitFor();
    assert.equal(await page.getByRole('button', { name: 'Send' }).isDisabled(), true, 'no send mid-upload');
    await shots.take(page, 'composer-uploading');
    for (const name of ['notes.txt', 'data.csv'])
      await page.locator(`.staged-file[data-staged="${name}"] progress[data-progress="100"]`).waitFor();
    await page.unroute('**/api/v1/chat/uploads**');
    await box().fill('two files');
    await page.keyboard.press('Enter');
    await delivered('two files');
    const sent = page.locator('.messages .msg-in', { hasText: 'two files' });
    assert.deepEqual(
      (await sent.locator('[data-attachment]').allTextContents()).map((s) => s.split(' ')[1]),
      ['notes.txt', 'data.csv'],
    );
    assert.equal(await page.locator('.staged-file').count(), 0);

    await page.evaluate(`(() => {
      const dt = new DataTransfer();
      dt.items.add(new File(['dropped bytes'], 'dropped.txt', { type: 'text/plain' }));
      const target = document.querySelector('.messages');
      target.dispatchEvent(new DragEvent('dragover', { dataTransfer: dt, bubbles: true, cancelable: true }));
      target.dispatchEvent(new DragEvent('drop', { dataTransfer: dt, bubbles: true, cancelable: true }));
    })()`);
    await page.locator('.staged-file[data-staged="dropped.txt"] progress[data-progress="100"]').waitFor();
    await page.getByRole('button', { name: 'Send' }).click();
    await page
      .locator('.messages .msg-in[data-state="delivered"] [data-attachment]', { hasText: 'dropped.txt' })
      .waitFor();
    const files = (await inbound('files')).map((m) => [m.text, m.attachments.map((a) => a.filename)]);
    assert.deepEqual(files, [
      ['two files', ['notes.txt', 'data.csv']],
      ['', ['dropped.txt']],
    ]);

    await page
      .locator('[data-picker]')
      .setInputFiles([{ name: 'huge.bin', mimeType: 'application/octet-stream', buffer: Buffer.alloc(MAX_BYTES + 1) }]);
    const refused = page.locator('.staged-file[data-staged="huge.bin"] .staged-error');
    await refused.waitFor();
    assert.match((await refused.textContent()) ?? '', new RegExp(`larger than ${MAX_BYTES} bytes`));
    assert.equal(await page.getByRole('button', { name: 'Send' }).isDisabled(), true);
    await page.getByRole('button', { name: 'Remove huge.bin' }).click();
    assert.equal(await page.locator('.staged-file').count(), 0);
  });

  it('a failed message says why; Resend, once the agent can start, sends the same text and file as a new message', async () => {
    await spawn('nee', 'needy');
    await t.op('POST', '/api/v1/agents/nee/stop');
    const config = fs.readFileSync(t.daemon.paths.configFile, 'utf8');
    fs.writeFileSync(t.daemon.paths.configFile, config.replace('  acct: { K: v }\n', ''));
    await t.daemon.reloadConfig('test');
    await open('nee');
    await page
      .locator('[data-picker]')
      .setInputFiles([{ name: 'report.txt', mimeType: 'text/plain', buffer: Buffer.from('the report\n') }]);
    await page.locator('.staged-file[data-staged="report.txt"] progress[data-progress="100"]').waitFor();
    await box().fill('please read this');
    await page.keyboard.press('Enter');
    const failed = page.locator('.messages .msg-in[data-state="failed"]', { hasText: 'please read this' });
    await failed.waitFor();
    assert.match((await failed.locator('.msg-why').textContent()) ?? '', /acct/);
    assert.equal((await failed.locator('.msg-state').textContent())?.trim(), '· Not delivered');
    await shots.take(page, 'message-failed');

    fs.writeFileSync(t.daemon.paths.configFile, config);
    await t.daemon.reloadConfig('test');
    await sleep(1000);
    await failed.getByRole('button', { name: 'Resend' }).click();
    const again = page.locator('.messages .msg-in[data-state="delivered"]', { hasText: 'please read this' });
    await again.waitFor({ timeout: 15_000 });
    assert.equal(await again.locator('[data-attachment]', { hasText: 'report.txt' }).count(), 1);
    const [first, second] = (await inbound('nee')).filter((m) => m.text === 'please read this');
    assert.equal(first!.state, 'failed');
    assert.equal(second!.state, 'delivered');
    assert.notEqual(first!.client_id, second!.client_id, 'a new client id');
    assert.deepEqual(
      second!.attachments.map((a) => a.filename),
      ['report.txt'],
    );
    assert.match(paneText(t.home, 'nee', 200), /report\.txt/, 'the file reached the agent');
  });

  it('a send the daemon refuses for good stays as not sent, with its words, Retry and Discard', async () => {
    await spawn('gone');
    await open('gone');
    // Typed on a train, offline, while the agent is removed from another device: once back, the daemon answers 404,
    // which no retry changes. (Online, the thread of a removed agent offers no composer at all.)
    await context().setOffline(true);
    await page.locator('[data-connection="offline"]:visible').waitFor();
    const removed = await t.op('DELETE', '/api/v1/agents/gone');
    assert.equal(removed.status, 200, removed.text);
    await box().fill('to nobody');
    await page.keyboard.press('Enter');
    await context().setOffline(false);
    const refused = page.locator('.msg-outbox[data-state="refused"]', { hasText: 'to nobody' });
    await refused.waitFor();
    assert.match((await refused.locator('.msg-refused').textContent()) ?? '', /Not sent: no agent named "gone"/);
    // Back online the app knows the agent is gone: no composer, the thread says why, the unsent message stays.
    await page.locator('[data-thread="gone"] [data-no-agent]').waitFor();
    assert.equal(await box().count(), 0);
    await shots.take(page, 'outbox-refused');
    await refused.getByRole('button', { name: 'Retry' }).click();
    await refused.waitFor();
    await refused.getByRole('button', { name: 'Discard' }).click();
    await refused.waitFor({ state: 'detached' });
    await page.reload();
    await page.locator('[data-thread="gone"] [data-no-agent]').waitFor();
    assert.equal(await page.locator('.msg-outbox').count(), 0, 'discarded for good');
  });

  it("an agent's ask is an action card in the thread, answered there", async () => {
    await open('ask');
    const held = request(t.tcp, 'POST', '/api/agent/ask/chat/ask', {
      token: t.daemon.agentToken,
      body: {
        timeout_s: 600,
        question: 'Deploy now?',
        options: [
          { value: 'yes', label: 'Yes' },
          { value: 'no', label: 'No' },
        ],
      },
    });
    const card = page.locator('.messages .action-card', { hasText: 'Deploy now?' });
    await card.waitFor();
    await sleep(500);
    await card.getByRole('button', { name: 'Yes' }).click();
    const answer = await held;
    assert.equal(answer.status, 200, answer.text);
    assert.deepEqual(answer.json.data.values, ['yes']);
    await page.locator('.messages .action-card.closed', { hasText: 'Deploy now?' }).waitFor();
  });

  it('a staged file survives a reload with the draft, and goes with the message once', async () => {
    await open('kept');
    await page
      .locator('[data-picker]')
      .setInputFiles([{ name: 'report.txt', mimeType: 'text/plain', buffer: Buffer.from('the report\n') }]);
    await page.locator('.staged-file[data-staged="report.txt"] progress[data-progress="100"]').waitFor();
    await box().fill('here is the report');
    await sleep(800);
    await page.reload();
    await page.locator('[data-thread="kept"] .composer textarea').waitFor();
    await page.locator('.staged-file[data-staged="report.txt"] progress[data-progress="100"]').waitFor();
    await draftIs('kept', 'here is the report');
    await shots.take(page, 'composer-staged-after-reload');
    await box().focus();
    await page.keyboard.press('Enter');
    await delivered('here is the report');
    const sent = page.locator('.messages .msg-in', { hasText: 'here is the report' });
    assert.deepEqual(
      (await sent.locator('[data-attachment]').allTextContents()).map((s) => s.split(' ')[1]),
      ['report.txt'],
    );
    const mine = (await inbound('kept')).filter((m) => m.attachments.length > 0);
    assert.deepEqual(
      mine.map((m) => m.attachments.map((a) => a.filename)),
      [['report.txt']],
    );
    await page.reload();
    await page.locator('[data-thread="kept"] .composer textarea').waitFor();
    await sleep(800);
    assert.equal(await page.locator('.staged-file').count(), 0, 'sent: no longer staged');
  });
});
