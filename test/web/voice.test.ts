// Voice notes recorded in Leo Web (issue 17) in a real browser against the real daemon: chromium's fake microphone
// plays an espeak-ng wav into getUserMedia, the page records it with MediaRecorder (hold to talk, tap to toggle),
// the note goes through the outbox and the upload route, the daemon transcribes it with ffmpeg + whisper-cli on the
// pool and delivers `[Leo Chat] <transcript>` to a shell agent (`exec cat`). The weightless test model hears
// nothing; with LEO_TEST_WHISPER_MODEL set to a real ggml model the words themselves are asserted.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Browser, Page } from 'playwright-core';
import { nativeBinDir } from '../../src/native/programs.js';
import { paneText, startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { SseClient } from '../helpers/sse-client.js';
import { writeWeightlessModel } from '../helpers/whisper-model.js';
import { DESKTOP, launchBrowser, pairedPage, Screenshots, watchPage } from './browser.js';
import { MessagePage } from '../../src/wire/message.js';

const whisperBuilt = fs.existsSync(path.join(nativeBinDir(), 'whisper-cli'));
const realModel = process.env.LEO_TEST_WHISPER_MODEL;
const SPOKEN = 'Ship the release tonight.';

interface Stored {
  id: string;
  kind: string;
  state: string;
  text: string;
  transcript?: string;
  failure?: string;
  client_id?: string;
  attachments: { id: string; filename: string; mime: string; bytes: number }[];
}

describe(
  'Leo Web: voice notes recorded in the page',
  { skip: whisperBuilt ? false : 'whisper-cli is not built (run: node native-bins/setup.mjs --for-tests)' },
  () => {
    let t: TestDaemon;
    let browser: Browser;
    let page: Page;
    let sse: SseClient;
    let scratch = '';
    const shots = new Screenshots();
    /** Screenshots' sizes, and the desktop in dark mode too. */
    const take = async (name: string) => {
      await shots.take(page, name);
      const size = page.viewportSize()!;
      await page.setViewportSize(DESKTOP);
      await page.emulateMedia({ colorScheme: 'dark' });
      await page.screenshot({ path: path.join(shots.dir, `${name}-1280x800-dark.png`) });
      await page.emulateMedia({ colorScheme: 'light' });
      await page.setViewportSize(size);
    };
    const stored = async (agent: string): Promise<Stored[]> =>
      (await t.get(`/api/v1/chat/${agent}/messages?limit=100`, MessagePage)).messages;
    const voiceNotes = async (agent: string) => (await stored(agent)).filter((m) => m.kind === 'voice');
    const mic = () => page.locator('.mic-button');
    const open = async (agent: string) => {
      await page.goto(`${t.daemon.appUrl}#/t/${agent}`);
      await page.locator(`[data-thread="${agent}"] .composer textarea`).waitFor();
      await page.locator('[data-connection="live"]').first().waitFor({ state: 'attached' });
    };
    /** Every voice state the thread's notes pass through, in order, as the page rendered them. */
    const watchStates = () =>
      page.evaluate(`(() => {
        const seen = (window.voiceStates = []);
        const note = () => {
          for (const el of document.querySelectorAll('[data-voice-state]')) {
            const s = el.getAttribute('data-voice-state');
            if (seen.at(-1) !== s) seen.push(s);
          }
        };
        new MutationObserver(note).observe(document.body, {
          subtree: true, childList: true, attributes: true, attributeFilter: ['data-voice-state'],
        });
      })()`);
    const statesSeen = async () => (await page.evaluate('window.voiceStates')) as string[];
    /** Waits for the agent's pane to show the delivery of `file` (cat echoes what it is typed). */
    const deliveredToPane = async (agent: string, file: string) => {
      for (let i = 0; i < 100; i++) {
        const pane = paneText(t.home, agent, 200).replace(/\s/g, '');
        if (pane.includes(file)) return paneText(t.home, agent, 200);
        await sleep(100);
      }
      assert.fail(`${file} never reached ${agent}'s pane:\n${paneText(t.home, agent, 200)}`);
    };
    /** The stored note once settled, with what the agent was typed and the SSE transcript change for it. */
    const settled = async (agent: string, count: number) => {
      let notes: Stored[] = [];
      for (let i = 0; i < 200; i++) {
        notes = await voiceNotes(agent);
        if (notes.length >= count && notes[count - 1]!.state !== 'pending') break;
        await sleep(100);
      }
      const note = notes[count - 1];
      assert.ok(note, `voice note ${count} stored`);
      return note;
    };
    const assertNote = async (agent: string, note: Stored) => {
      assert.equal(note.kind, 'voice');
      // The weightless model hears no words: the note is held until the page sends it anyway.
      assert.equal(note.state, realModel ? 'delivered' : 'failed', JSON.stringify(note));
      assert.equal(note.text, '');
      assert.match(note.client_id ?? '', /^[0-9a-f-]{36}$/, 'sent through the outbox under a client id');
      assert.equal(note.attachments.length, 1);
      const [a] = note.attachments;
      assert.match(a!.filename, /^voice-note-\d{8}-\d{6}\.webm$/, 'Chromium records WebM: the name says so');
      assert.match(a!.mime, /^audio\/webm/, 'recognised as audio by its bytes');
      assert.ok(a!.bytes > 4000, `a real recording (${a!.bytes} bytes)`);
      if (realModel) assert.match(note.transcript ?? '', /ship.*release.*tonight/i, 'the real model heard the words');
      else assert.equal(note.transcript, '', 'the weightless model transcribes to nothing, after the whole pipeline');
      await sse.waitUntil(() =>
        sse.events.some(
          (e) => e.event === 'chat.updated' && e.data.change === 'transcript' && e.data.message.id === note.id,
        ),
      );
      const file = path.join(t.home, 'state', 'chat', 'attachments', agent, a!.id, a!.filename);
      if (!realModel) await sendAnyway(note, file, agent);
      const pane = await deliveredToPane(agent, file);
      assert.ok(
        pane.includes(`[Leo Chat] ${note.transcript}`.trim()),
        `the agent was typed the transcript as a chat message:\n${pane}`,
      );
    };
    /** A note held for no words shows why, with Retry and Send anyway; Send anyway types it into the agent once. */
    const sendAnyway = async (note: Stored, file: string, agent: string) => {
      assert.equal(note.failure, 'no_speech');
      const row = page.locator(`.msg[data-id="${note.id}"]`);
      await row.locator('[data-held="no_speech"]').waitFor();
      assert.equal(await row.locator('.msg-why').innerText(), 'No words recognised — not sent.');
      assert.deepEqual(await row.locator('.msg-actions button').allInnerTexts(), ['Retry', 'Send anyway']);
      assert.equal(await row.getByRole('button', { name: 'Resend' }).count(), 0, 'no second, generic resend');
      assert.ok(!paneText(t.home, agent, 200).replace(/\s/g, '').includes(file), 'held: not typed');
      await take('voice-held');
      await row.getByRole('button', { name: 'Send anyway' }).click();
      await page.locator(`.msg[data-id="${note.id}"][data-state="delivered"]`).waitFor();
      assert.equal(await row.locator('[data-held]').count(), 0, 'the buttons go once it is sent');
    };
    /** The note's row in the thread: its player's length and that it plays (from a blob URL, under the CSP). */
    const assertPlayer = async (note: Stored, about: number) => {
      const row = page.locator(`.msg[data-id="${note.id}"]`);
      await row.locator('[data-voice-state="transcribed"]').waitFor();
      const player = row.locator('[data-voice-note]');
      await player
        .locator('[data-duration-ms]')
        .or(player.and(page.locator('[data-duration-ms]')))
        .first()
        .waitFor();
      const ms = Number(await player.getAttribute('data-duration-ms'));
      assert.ok(Math.abs(ms - about) < 1200, `the player's length ${ms} ms is about the ${about} ms recorded`);
      assert.match((await row.locator('audio').getAttribute('src')) ?? '', /^blob:/);
      await row.getByRole('button', { name: 'Play voice note' }).click();
      await row.getByRole('button', { name: 'Pause voice note' }).waitFor();
      await sleep(700);
      const at = await row.locator('audio').evaluate((el) => (el as unknown as { currentTime: number }).currentTime);
      assert.ok(at > 0.2, `the note plays (at ${at} s)`);
      await row.getByRole('button', { name: 'Pause voice note' }).click();
    };

    before(async () => {
      scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'leo-web-voice-'));
      const wav = path.join(scratch, 'speech.wav');
      execFileSync('espeak-ng', ['-w', wav, SPOKEN], { stdio: 'pipe' });
      const model = realModel ?? writeWeightlessModel(path.join(scratch, 'ggml-tiny.en.bin'));
      [t, browser] = await Promise.all([
        startTestDaemon({
          config: `chat:\n  whisper_model: ${model}\ntemplates:\n  cat: { harness: shell, command: "exec cat" }\n`,
        }),
        launchBrowser([
          '--use-fake-ui-for-media-stream',
          '--use-fake-device-for-media-stream',
          `--use-file-for-fake-audio-capture=${wav}`,
        ]),
      ]);
      for (const name of ['den', 'ivy']) {
        const r = await t.op('POST', '/api/v1/agents/spawn', { template: 'cat', name });
        assert.equal(r.status, 201, r.text);
      }
      sse = await SseClient.open(t.tcp, '/api/v1/events', t.daemon.operatorToken);
      await sse.waitFor(1);
      ({ page } = await pairedPage(browser, t, 'phone'));
    });
    after(async () => {
      sse?.close();
      await browser?.close();
      await t?.stop();
      if (scratch) fs.rmSync(scratch, { recursive: true, force: true });
    });

    it('hold to talk: pressed for 2.5 s, released, the note is uploaded, transcribed and delivered as [Leo Chat]', async () => {
      await open('den');
      await watchStates();
      const box = (await mic().boundingBox())!;
      await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
      await page.mouse.down();
      await page.locator('[data-recording="recording"]').waitFor();
      assert.equal(await mic().getAttribute('data-mic'), 'holding');
      assert.match(await page.locator('.rec-hint').innerText(), /Release to send/);
      await sleep(1300);
      assert.equal(await page.locator('[data-rec-time]').innerText(), '0:01', 'the timer runs');
      await sleep(1200);
      await page.mouse.up();
      await page.locator('[data-recording]').waitFor({ state: 'detached' });

      const note = await settled('den', 1);
      await assertNote('den', note);
      await assertPlayer(note, 2500);
      const states = await statesSeen();
      assert.deepEqual(
        states.filter((s, i) => s !== states[i - 1]),
        ['transcribing', 'transcribed'],
        'the thread showed "Transcribing…" until chat.updated brought the transcript',
      );
      assert.equal(
        await page.locator(`.msg[data-id="${note.id}"] [data-transcript]`).innerText(),
        realModel ? note.transcript : 'No words recognised',
      );
      await page.locator(`.msg[data-id="${note.id}"][data-state="delivered"]`).waitFor();
      await take('voice-transcript');
    });

    it('sliding off the button while holding, or Esc, throws the recording away and stays in the thread', async () => {
      const before = (await voiceNotes('den')).length;
      const box = (await mic().boundingBox())!;
      await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
      await page.mouse.down();
      await page.locator('[data-recording="recording"]').waitFor();
      await sleep(800);
      await page.mouse.move(box.x - 120, box.y - 200, { steps: 4 });
      await page.locator('[data-recording]').waitFor({ state: 'detached' });
      await page.mouse.up();

      await mic().click();
      await page.locator('[data-recording="recording"]').waitFor();
      await sleep(700);
      await page.keyboard.press('Escape');
      await page.locator('[data-recording]').waitFor({ state: 'detached' });
      assert.match(page.url(), /#\/t\/den$/, "Esc cancelled the recording, not the thread (the shortcut's back)");
      await sleep(1500);
      assert.equal((await voiceNotes('den')).length, before, 'nothing was sent');
      assert.equal(await page.locator('.outbox-list .msg').count(), 0);
    });

    it('tap to toggle, offline: a tap records, a second tap sends; the note waits in the outbox with its player', async () => {
      await open('ivy');
      await page.context().setOffline(true);
      await page.locator('[data-connection="live"]').waitFor({ state: 'detached' });
      await mic().click();
      await page.locator('[data-recording="recording"]').waitFor();
      assert.equal(await mic().getAttribute('data-mic'), 'toggled', 'a short press is a tap: recording goes on');
      await sleep(1800);
      assert.equal(await mic().getAttribute('aria-label'), 'Stop and send voice note');
      await take('voice-recording');
      await mic().click();
      await page.locator('[data-recording]').waitFor({ state: 'detached' });

      const waiting = page.locator('.outbox-list .msg[data-state="waiting"]');
      await waiting.locator('[data-voice-note][data-duration-ms]').waitFor();
      const ms = Number(await waiting.locator('[data-voice-note]').getAttribute('data-duration-ms'));
      assert.ok(ms > 1500 && ms < 3500, `the recorder's length, ${ms} ms`);
      assert.match(await waiting.locator('[data-voice-time]').innerText(), /^0:0[23]$/);
      await take('voice-waiting');
      assert.equal((await voiceNotes('ivy')).length, 0, 'offline: nothing reached the daemon');

      await page.context().setOffline(false);
      const note = await settled('ivy', 1);
      await assertNote('ivy', note);
      await assertPlayer(note, ms);
      assert.equal(await page.locator('.outbox-list .msg').count(), 0, 'the bubble became the stored note');
      // After a reload (as on another device) the bytes come from the daemon and the length from the decoded audio.
      await page.reload();
      await assertPlayer(note, ms);
    });

    it('on a touch phone: a finger held on the button sends on lift; slid off, it cancels', async () => {
      const touch = await browser.newContext({ viewport: { width: 390, height: 844 }, hasTouch: true, isMobile: true });
      try {
        const issued = await t.op('POST', '/api/v1/devices/pairing-codes', { name: 'touch' });
        const tp = watchPage(await touch.newPage());
        await tp.goto(issued.json.data.url);
        await tp.locator('[data-connection="live"]').waitFor();
        await tp.goto(`${t.daemon.appUrl}#/t/ivy`);
        const button = tp.locator('.mic-button');
        await button.waitFor();
        const box = (await button.boundingBox())!;
        const [x, y] = [box.x + box.width / 2, box.y + box.height / 2];
        const cdp = await touch.newCDPSession(tp);
        const finger = (type: 'touchStart' | 'touchMove' | 'touchEnd', points: { x: number; y: number }[]) =>
          cdp.send('Input.dispatchTouchEvent', { type, touchPoints: points });
        const before = (await voiceNotes('ivy')).length;

        // Slid off: a touch stays captured by the button, yet leaving it is seen and cancels.
        await finger('touchStart', [{ x, y }]);
        await tp.locator('[data-recording="recording"]').waitFor();
        await sleep(900);
        for (const dy of [20, 60, 120, 200]) await finger('touchMove', [{ x: x - dy, y: y - dy }]);
        await tp.locator('[data-recording]').waitFor({ state: 'detached' });
        await finger('touchEnd', []);

        await finger('touchStart', [{ x, y }]);
        await tp.locator('[data-recording="recording"]').waitFor();
        assert.equal(await button.getAttribute('data-mic'), 'holding');
        await sleep(1800);
        await finger('touchEnd', []);
        await tp.locator('[data-recording]').waitFor({ state: 'detached' });
        const note = await settled('ivy', before + 1);
        await assertNote('ivy', note);
        await sleep(500);
        assert.equal((await voiceNotes('ivy')).length, before + 1, 'only the held note was sent');
      } finally {
        await touch.close();
      }
    });

    it('a denied microphone says so in the composer', async () => {
      // Without the fake-ui switch chromium asks, and a Playwright context that was granted nothing says no.
      const denying = await launchBrowser(['--use-fake-device-for-media-stream']);
      try {
        const { page: p } = await pairedPage(denying, t, 'denied');
        await p.goto(`${t.daemon.appUrl}#/t/den`);
        await p.locator('.mic-button').click();
        const problem = p.locator('[data-recording="error"]');
        await problem.waitFor();
        assert.match(await problem.innerText(), /Microphone access is blocked/);
        assert.equal(await p.locator('.recording-bar').count(), 0);
        await shots.take(p, 'voice-denied');
        await problem.getByRole('button', { name: 'Dismiss' }).click();
        await problem.waitFor({ state: 'detached' });
        await p.locator('.mic-button').click();
        await problem.waitFor();
        assert.equal(await p.locator('.mic-button').getAttribute('data-mic'), 'idle', 'a second try asks again');
      } finally {
        await denying.close();
      }
    });
  },
);
