// Issue 31, Done when 2, the browser half: a phone paired with a hub drives an agent of another machine as a person
// would. A hub and a host, two real daemons on loopback; the phone (a real Chromium at phone size, its microphone fed
// an espeak-ng wav) starts `den` on the host from the new-agent screen, sends it text and a voice note (transcribed on
// the host), answers its ask and questions card, opens its terminal and presses keys in it, and reviews its
// workspace's changes; a permission prompt raised on the host pushes to the phone through the hub (a stand-in push
// service on loopback, the push handed to the real service worker over DevTools), and the notification's tap opens
// `den@box` at the card, where Allow answers the host's hook. Everything the test checks on the host it reads there.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import https from 'node:https';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { systemClock } from '../../src/core/clock.js';
import { nativeBinDir } from '../../src/native/programs.js';
import { PushPayload } from '../../src/push/provider.js';
import { Agent } from '../../src/wire/fleet.js';
import { MessagePage, type Message } from '../../src/wire/message.js';
import { paneText, startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { makeChangedRepo } from '../helpers/git-repo.js';
import { pairHost } from '../helpers/pair-host.js';
import { tempDir } from '../helpers/temp-home.js';
import { until } from '../helpers/wait.js';
import { SMALLEST_HPARAMS, writeWeightlessModel } from '../helpers/whisper-model.js';
import { browserKeys, selfSignedCert, startReceiver, type Receiver } from '../push/helpers.js';
import {
  agentAsk,
  agentPost,
  hookRequest,
  launchBrowser,
  pairedPage,
  permissionRequest,
  Screenshots,
} from './browser.js';
import { pushDevice, type PushDevice } from './push-device.js';

const scratch = tempDir('leo-hub-web-');
const tls = selfSignedCert(scratch);
const whisperBuilt = fs.existsSync(path.join(nativeBinDir(), 'whisper-cli'));
const skip = !whisperBuilt
  ? 'whisper-cli is not built (run: node native-bins/setup.mjs --for-tests)'
  : tls
    ? false
    : 'openssl is not installed; cannot stand in for a push service';
/** A person reads a card before tapping it. */
const PACE_MS = 500;

describe('Leo Web on a hub: an agent of another machine, from the phone', { skip }, () => {
  let host: TestDaemon;
  let hub: TestDaemon;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let device: PushDevice;
  let rx: Receiver;
  let pushAgent: https.Agent;
  const keys = browserKeys();
  const shots = new Screenshots();
  const thread = () => page.locator('[data-thread="den@box"]');
  /** What den's pane on the host shows, its wrapped lines joined and blanks dropped. */
  const pane = () => paneText(host.home, 'den', 200).replace(/\s/g, '');
  const onHost = async () => (await host.get('/api/v1/chat/den/messages?limit=100', MessagePage)).messages;
  /** The first push from `from` on that `match`es, decrypted: the bytes the phone's browser would get. */
  const pushed = (from: number, match: (p: PushPayload) => boolean) =>
    until(
      'a push to the phone',
      () =>
        rx.requests
          .slice(from)
          .map((r) => keys.decrypt(r.body).toString('utf8'))
          .find((data) => match(PushPayload.parse(JSON.parse(data)))),
      20_000,
      50,
    );

  before(async () => {
    const wav = path.join(scratch, 'speech.wav');
    execFileSync('espeak-ng', ['-w', wav, 'Ship the release tonight.'], { stdio: 'pipe' });
    // The host hears nothing (a weightless model), through the whole pipeline; the hub has no model at all.
    const model = writeWeightlessModel(path.join(scratch, 'ggml-tiny.en.bin'), SMALLEST_HPARAMS);
    const { repo } = makeChangedRepo(fs.mkdtempSync(path.join(scratch, 'repo-')));
    rx = await startReceiver(tls!);
    pushAgent = new https.Agent({ ca: tls!.cert });
    [host, hub, browser] = await Promise.all([
      // The host in real time, as a machine of its own: its terminal follows the pane live.
      startTestDaemon({
        clock: systemClock,
        config:
          `chat:\n  whisper_model: ${model}\n` +
          `templates:\n  dev: { harness: shell, command: "exec cat", workspace: ${JSON.stringify(repo)} }\n`,
      }),
      // The hub's own templates differ from the host's; its push service is the stand-in on loopback.
      startTestDaemon({
        pushAgent,
        config:
          'chat:\n  webhook_allowed_hosts: [127.0.0.1]\ntemplates:\n  cat: { harness: shell, command: "exec cat" }\n',
      }),
      launchBrowser([
        '--use-fake-ui-for-media-stream',
        '--use-fake-device-for-media-stream',
        `--use-file-for-fake-audio-capture=${wav}`,
      ]),
    ]);
    await pairHost(hub, host, 'box');
    ({ context, page } = await pairedPage(browser, hub, 'phone', { mobile: true }));
    device = await pushDevice(context, page);
    // The subscription the stand-in push service serves, registered with the device's token as the app does with the
    // browser's (a test browser has no push service): one subscription, on the hub.
    const sub = await hub.as(device.token).op('POST', '/api/v1/push/subscriptions', {
      provider: 'web-push',
      endpoint: `${rx.url}/push/phone`,
      keys: { p256dh: keys.p256dh, auth: keys.auth },
    });
    assert.equal(sub.status, 201, sub.text);
  });
  after(async () => {
    await context?.close();
    await browser?.close();
    await Promise.all([hub?.stop(), host?.stop()]);
    pushAgent?.destroy();
    await rx?.close();
    fs.rmSync(scratch, { recursive: true, force: true });
  });

  it("the new-agent screen starts den on box from box's own templates and opens den@box's thread", async () => {
    await page.locator('.new-link').tap();
    const form = page.locator('[data-screen="new"]');
    const template = form.getByLabel('Template');
    await template.locator('option', { hasText: 'cat' }).waitFor({ state: 'attached' });
    await form.getByLabel('Machine').selectOption('box');
    await template.locator('option', { hasText: 'dev' }).waitFor({ state: 'attached' });
    assert.deepEqual(
      await template.locator('option').allInnerTexts(),
      ['dev — shell'],
      "box's templates, not the hub's",
    );
    await form.getByLabel('Name (optional)').fill('den');
    await shots.take(page, 'hub-spawn');
    await form.getByRole('button', { name: 'Start agent' }).tap();
    await thread().waitFor();
    assert.match(page.url(), /#\/t\/den%40box$/);
    assert.equal(await thread().locator('.bar h1').innerText(), 'den · box');
    const den = (await host.get('/api/v1/agents', Agent.array())).find((a) => a.name === 'den');
    assert.equal(den?.template, 'dev', 'spawned on the host, from its template');
    const own = await hub.get('/api/v1/agents', Agent.array());
    assert.ok(!own.some((a) => a.name === 'den'), 'nothing spawned on the hub');
  });

  it("text sent from the thread is typed into den's pane on box; den's reply shows in the thread", async () => {
    await thread().locator('.composer textarea').fill('hello from the phone');
    await thread().getByRole('button', { name: 'Send', exact: true }).tap();
    const sent = thread().locator('.msg-in', { hasText: 'hello from the phone' });
    await sent.and(page.locator('[data-state="delivered"]')).waitFor();
    await until('the text in den’s pane on box', () => pane().includes('hellofromthephone'), 15_000);
    await agentPost(host, 'den', 'hi from box');
    await thread().locator('.msg-out .msg-text', { hasText: 'hi from box' }).waitFor();
    await shots.take(page, 'hub-text');
  });

  it('a voice note recorded on the phone is transcribed on box; held for no words, Send anyway types it there', async () => {
    const mic = thread().locator('.mic-button');
    await mic.tap();
    await page.locator('[data-recording="recording"]').waitFor();
    await sleep(1_500);
    await mic.tap();
    await page.locator('[data-recording]').waitFor({ state: 'detached' });
    const note = await until(
      'the voice note settled on box',
      async () => (await onHost()).find((m) => m.kind === 'voice' && m.state !== 'pending'),
      30_000,
      200,
    );
    assert.equal(note.failure, 'no_speech', 'transcribed on box by its model, which hears nothing');
    const [audio] = note.attachments;
    assert.match(audio!.mime, /^audio\/webm/);
    assert.ok(audio!.bytes > 4000, `a real recording (${audio!.bytes} bytes)`);
    const row = thread().locator(`.msg[data-id="${note.id}"]`);
    await row.locator('[data-held="no_speech"]').waitFor();
    await shots.take(page, 'hub-voice-held');
    await sleep(PACE_MS);
    await row.getByRole('button', { name: 'Send anyway' }).tap();
    await row.and(page.locator('[data-state="delivered"]')).waitFor();
    const file = path.join(host.home, 'state', 'chat', 'attachments', 'den', audio!.id, audio!.filename);
    await until('the note’s file typed in den’s pane on box', () => pane().includes(file), 15_000);
  });

  it('an ask and a questions card from den on box are answered in the thread; den gets the answers', async () => {
    const held = agentAsk(host, 'den', {
      question: 'Deploy to prod?',
      options: [
        { value: 'yes', label: 'Deploy' },
        { value: 'no', label: 'Hold' },
      ],
    });
    const questions = hookRequest(host, 'den', {
      tool_name: 'AskUserQuestion',
      tool_input: {
        questions: [
          {
            question: 'Where first?',
            header: 'Target',
            multiSelect: false,
            options: [{ label: 'staging' }, { label: 'prod' }],
          },
          {
            question: 'Tell whom?',
            header: 'Notify',
            multiSelect: true,
            options: [{ label: 'team' }, { label: 'ops' }],
          },
        ],
      },
    });
    const ask = thread().locator('.action-card', { hasText: 'Deploy to prod?' });
    const qcard = thread().locator('.action-card', { hasText: 'Tell whom?' });
    await ask.waitFor();
    await qcard.waitFor();
    await shots.take(page, 'hub-cards');

    await sleep(PACE_MS);
    await ask.getByRole('button', { name: 'Deploy' }).tap();
    await ask.locator('.settled').waitFor();
    const answered = await held;
    assert.equal(answered.status, 200, answered.text);
    assert.deepEqual(answered.json.data.values, ['yes'], "den's held ask returned the phone's answer");

    await qcard.getByLabel('staging').check();
    await qcard.getByLabel('ops').check();
    await qcard.getByLabel('Other (Notify)').fill('the owner');
    await qcard.getByRole('button', { name: 'Send answers' }).tap();
    await qcard.locator('.settled', { hasText: 'Target: staging' }).waitFor();
    const decision = JSON.parse(await questions).hookSpecificOutput.decision;
    assert.equal(decision.behavior, 'allow');
    assert.deepEqual(decision.updatedInput.answers, { 'Where first?': 'staging', 'Tell whom?': ['ops', 'the owner'] });
    await shots.take(page, 'hub-cards-settled');
  });

  it("den's terminal shows box's pane and presses keys in it", async () => {
    await thread().locator('.term-toggle').tap();
    const term = page.locator('[data-terminal="den@box"]');
    await term.and(page.locator('[data-state="live"]')).waitFor();
    await term.locator('.term-row', { hasText: 'hello from the phone' }).first().waitFor();
    await term.locator('.term-switch input').check();
    await term.getByRole('button', { name: 'Press y' }).tap();
    await term.getByRole('button', { name: 'Press Enter' }).tap();
    // cat echoes the typed y, then prints the line back: two rows of `y`.
    await until('the keys in den’s pane on box', () => /^y\ny$/m.test(paneText(host.home, 'den')), 10_000);
    await page.waitForFunction(
      () =>
        [...(globalThis as any).document.querySelectorAll('[data-terminal="den@box"] .term-row')].filter(
          (r: { textContent: string }) => r.textContent === 'y',
        ).length >= 2,
    );
    await shots.take(page, 'hub-terminal');
    await thread().locator('.term-toggle').tap();
  });

  it("den's changes on box are listed and a diff opens, escaped, unified on the phone", async () => {
    await thread().locator('.manage-link').tap();
    await page.locator('[data-controls="den@box"] .changes-link').tap();
    const list = page.locator('[data-screen="changes"]');
    await list.locator('[data-file="src/app.ts"]').waitFor();
    const kinds = await list
      .locator('.change-list li')
      .evaluateAll((els) => els.map((e) => `${e.getAttribute('data-file')}:${e.getAttribute('data-kind')}`));
    assert.deepEqual(kinds.sort(), ['gone.txt:deleted', 'notes/new file.md:untracked', 'src/app.ts:modified']);
    await shots.take(page, 'hub-changes');
    await list.locator('[data-file="src/app.ts"] .change-link').tap();
    const diff = page.locator('.diff-unified');
    await diff.waitFor();
    assert.match(await diff.locator('tr.d-add').innerText(), /export const b = 3; \/\/ <b>bold<\/b>/);
    assert.equal(await page.locator('.diff b').count(), 0, 'diff text is never markup');
    await shots.take(page, 'hub-diff');
  });

  it("a permission prompt on box pushes to the phone as den@box; the tap opens den@box's card, Allow answers box's hook", async () => {
    // Away from den's thread since the changes (its presence withdrawn then), so its prompt pushes.
    await page.goto(`${hub.daemon.appUrl}#/`);
    await page.locator('[data-host-group="box"] [data-agent="den@box"]').waitFor();
    await shots.take(page, 'hub-fleet');
    const from = rx.requests.length;
    const printed = permissionRequest(host, 'den', 'rm -rf build');
    const data = await pushed(from, (p) => p.kind === 'needs_input');
    const payload = PushPayload.parse(JSON.parse(data));
    assert.equal(payload.agent, 'den@box');
    assert.equal(payload.kind === 'needs_input' && payload.message_kind, 'permission');
    const prompt = (await onHost()).find((m: Message) => m.kind === 'permission' && m.state === 'open');
    assert.equal(payload.message_id, prompt?.id, "the host's prompt, by its id");
    const shown = await device.deliver(data, payload.collapse_key ?? `message:${payload.message_id}`);
    assert.match(shown.body, /rm -rf build/);
    assert.equal(shown.data.url, `/#/t/den%40box/m/${payload.message_id}`);

    await sleep(PACE_MS);
    assert.equal(await device.click(shown.tag), 'opened');
    await page.waitForURL(`**/#/t/den%40box/m/${payload.message_id}`);
    const permission = thread().locator(`.action-card[data-id="${payload.message_id}"]`);
    await permission.locator('.permission-input', { hasText: 'rm -rf build' }).waitFor();
    await shots.take(page, 'hub-push-opened');
    await sleep(PACE_MS);
    await permission.getByRole('button', { name: 'Allow', exact: true }).tap();
    await permission.locator('.settled').waitFor();
    assert.equal(JSON.parse(await printed).hookSpecificOutput.decision.behavior, 'allow');
    await shots.take(page, 'hub-permission-allowed');
  });

  it("after a reload the Inbox still lists den@box's open ask, and answers it", async () => {
    const held = agentAsk(host, 'den', {
      question: 'Tag the release?',
      options: [
        { value: 'yes', label: 'Tag it' },
        { value: 'no', label: 'Not yet' },
      ],
    });
    const inboxCard = page.locator('[data-screen="inbox"] .action-card', { hasText: 'Tag the release?' });
    try {
      await page.goto(`${hub.daemon.appUrl}#/inbox`);
      await inboxCard.waitFor();
      await page.reload();
      await page.locator('[data-connection="live"]').first().waitFor({ state: 'attached' });
      await inboxCard.waitFor({ timeout: 5_000 });
      await inboxCard.getByRole('button', { name: 'Tag it' }).tap();
      assert.deepEqual((await held).json.data.values, ['yes']);
    } finally {
      const open = (await onHost()).find((m) => m.kind === 'ask' && m.state === 'open');
      // Not answered from the app: answered on box itself, so den's held call returns.
      if (open) await host.op('POST', `/api/v1/chat/den/messages/${open.id}/answer`, { values: ['no'] });
      await held;
    }
  });

  it("renamed from its controls, den@box becomes owl@box: box's own name for it changes", async () => {
    await page.goto(`${hub.daemon.appUrl}#/a/den%40box`);
    const controls = page.locator('[data-controls="den@box"]');
    const name = controls.locator('#rename');
    await name.waitFor();
    assert.equal(await name.inputValue(), 'den', 'the name box knows it by, which is what a rename changes');
    await name.fill('owl');
    await controls.getByRole('button', { name: 'Rename' }).tap();
    await page.locator('[data-controls="owl@box"]').waitFor();
    const names = (await host.get('/api/v1/agents', Agent.array())).map((a) => a.name);
    assert.ok(names.includes('owl') && !names.includes('den'), names.join(', '));
    await shots.take(page, 'hub-renamed');
  });
});
