import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { nativeBinDir } from '../../src/native/programs.js';
import { paneText, startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { request } from '../helpers/http.js';
import { SseClient } from '../helpers/sse-client.js';
import { SMALLEST_HPARAMS, writeWeightlessModel } from '../helpers/whisper-model.js';

const whisperBuilt = fs.existsSync(path.join(nativeBinDir(), 'whisper-cli'));

describe(
  'voice notes: audio upload → ffmpeg + whisper-cli on the pool → delivered',
  { skip: whisperBuilt ? false : 'whisper-cli is not built (run: node native-bins/setup.mjs --for-tests)' },
  () => {
    let t: TestDaemon;
    let sse: SseClient;
    let m4a = '';
    let fixtures: Fixtures;
    let scratch = '';
    const upload = (file: string, name: string, type: string | null = 'audio/mp4', agent = 'den') =>
      request(t.tcp, 'POST', `/api/v1/chat/uploads?filename=${encodeURIComponent(name)}&agent=${agent}`, {
        token: t.daemon.operatorToken,
        rawBody: fs.readFileSync(file),
        headers: type ? { 'content-type': type } : {},
      });
    /** Uploads a file, sends it as a message, and waits for it to settle. */
    const sendFile = async (file: string, name: string, type: string | null, agent = 'den') => {
      const up = await upload(file, name, type, agent);
      assert.equal(up.status, 201, up.text);
      const sent = await t.op('POST', `/api/v1/chat/${agent}/messages`, { attachments: [up.json.data.id] });
      assert.equal(sent.status, 201, sent.text);
      return { up: up.json.data, sent: sent.json.data, ...(await settled(sent.json.data.id, agent)) };
    };
    const settled = async (id: string, agent = 'den') => {
      for (let i = 0; i < 300; i++) {
        const page = (await t.op('GET', `/api/v1/chat/${agent}/messages`)).json.data;
        const m = page.messages.find((x: { id: string }) => x.id === id);
        if (m.state !== 'pending') return { m, page };
        await sleep(100);
      }
      throw new Error('still pending');
    };

    before(async () => {
      scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'leo-voice-'));
      const model = writeWeightlessModel(path.join(scratch, 'ggml-tiny.en.bin'), SMALLEST_HPARAMS);
      fixtures = makeFixtures(scratch);
      m4a = fixtures.audio.m4a!;
      t = await startTestDaemon({
        config: `chat:\n  whisper_model: ${model}\ntemplates:\n  cat: { harness: shell, command: "exec cat" }\n  mute: { harness: shell, command: "exec cat >/dev/null" }\n`,
      });
      await t.op('POST', '/api/v1/agents/spawn', { template: 'cat', name: 'den' });
      sse = await SseClient.open(t.tcp, '/api/v1/events', t.daemon.operatorToken);
      await sse.waitFor(1);
    });
    after(async () => {
      sse.close();
      await t.stop();
      fs.rmSync(scratch, { recursive: true, force: true });
    });

    it('an m4a upload makes a voice note; the real pipeline runs, hears no words and holds it until sent anyway', async () => {
      const up = await upload(m4a, 'note.m4a');
      assert.equal(up.status, 201, up.text);
      const sent = await t.op('POST', '/api/v1/chat/den/messages', { attachments: [up.json.data.id] });
      assert.equal(sent.json.data.kind, 'voice');
      const { m } = await settled(sent.json.data.id);
      assert.equal(m.transcript, '', 'the weightless model transcribes to nothing, but the whole pipeline ran');
      assert.equal(m.state, 'failed');
      assert.equal(m.failure, 'no_speech');
      await sse.waitUntil(() => sse.events.some((e) => e.event === 'chat.updated' && e.data.change === 'transcript'));
      const file = path.join(t.home, 'state', 'chat', 'attachments', 'den', up.json.data.id, 'note.m4a');
      const anyway = await t.op('POST', `/api/v1/chat/den/messages/${m.id}/send-anyway`, {});
      assert.equal(anyway.status, 200, anyway.text);
      assert.equal((await settled(m.id)).m.state, 'delivered');
      await sleep(300);
      assert.ok(paneText(t.home, 'den', 50).replace(/\s/g, '').includes(`Attachments:${file}`));
    });

    it('a silent recording is held, not typed: failed with no_speech and a note; retry hears nothing again; send anyway types it once, a second is a 409', async () => {
      const silent = path.join(scratch, 'silence.wav');
      execFileSync('sox', ['-n', '-r', '16000', '-c', '1', '-b', '16', silent, 'trim', '0', '4']);
      // An agent that does not print what it reads: the pane shows a typed message once, as the terminal echoes it.
      assert.equal((await t.op('POST', '/api/v1/agents/spawn', { template: 'mute', name: 'hush' })).status, 201);
      const before = (await t.op('GET', '/api/v1/chat/hush/messages')).json.data.messages.length;
      const { up, m, page } = await sendFile(silent, 'quiet.wav', 'audio/wav', 'hush');
      assert.equal(m.kind, 'voice');
      assert.equal(m.state, 'failed', JSON.stringify(m));
      assert.equal(m.failure, 'no_speech');
      assert.equal(m.transcript, '');
      const notes = page.messages.slice(before).filter((x: { kind: string }) => x.kind === 'system');
      assert.deepEqual(
        notes.map((x: { text: string }) => x.text),
        ['No words recognised in your voice note — it was not sent. Retry or send it anyway.'],
      );
      const typed = () => paneText(t.home, 'hush', 200).replace(/\s/g, '').split(`/${up.id}/quiet.wav`).length - 1;
      await sleep(1500);
      assert.equal(typed(), 0, 'nothing of the held note reached the pane');

      const retry = await t.op('POST', `/api/v1/chat/hush/messages/${m.id}/retry`, {});
      assert.equal(retry.status, 200, retry.text);
      assert.equal(retry.json.data.state, 'pending');
      const again = (await settled(m.id, 'hush')).m;
      assert.equal(again.state, 'failed', 'transcribed again, still no words');
      assert.equal(again.failure, 'no_speech');
      await sleep(1000);
      assert.equal(typed(), 0);

      const anyway = await t.op('POST', `/api/v1/chat/hush/messages/${m.id}/send-anyway`, {});
      assert.equal(anyway.status, 200, anyway.text);
      const second = await t.op('POST', `/api/v1/chat/hush/messages/${m.id}/send-anyway`, {});
      assert.equal(second.status, 409, second.text);
      const sent = (await settled(m.id, 'hush')).m;
      assert.equal(sent.state, 'delivered');
      assert.equal(sent.failure, undefined);
      for (const action of ['send-anyway', 'retry']) {
        const late = await t.op('POST', `/api/v1/chat/hush/messages/${m.id}/${action}`, {});
        assert.equal(late.status, 409, `${action} after delivery: ${late.text}`);
      }
      await sleep(1500);
      assert.equal(typed(), 1, 'typed exactly once');

      const other = await t.op('POST', `/api/v1/chat/hush/messages/${m.id}/retry`, undefined);
      assert.equal(other.status, 409);
      const missing = await t.op('POST', '/api/v1/chat/hush/messages/nope/send-anyway', {});
      assert.equal(missing.status, 404, missing.text);
      const device = await request(t.tcp, 'POST', `/api/v1/chat/hush/messages/${m.id}/retry`, { body: {} });
      assert.equal(device.status, 401, 'no token, no retry');
    });

    // How the app's recorders and people's files arrive: each container, as named or declared, or with neither.
    const arrivals: { ext: string; name: string; type: string | null }[] = [
      { ext: 'webm', name: 'note.webm', type: 'audio/webm;codecs=opus' },
      { ext: 'mp4', name: 'note.mp4', type: 'audio/mp4' },
      { ext: 'webm', name: 'voice-note', type: null },
      { ext: 'webm', name: 'recording.bin', type: 'application/octet-stream' },
      { ext: 'mp4', name: 'clip.mp4', type: 'video/mp4' },
      { ext: 'ogg', name: 'note.ogg', type: null },
      { ext: 'm4a', name: 'note', type: null },
      { ext: 'caf', name: 'note.caf', type: null },
      { ext: 'aac', name: 'note.aac', type: null },
      { ext: 'flac', name: 'note', type: 'application/octet-stream' },
      { ext: 'mp3', name: 'note', type: null },
    ];
    for (const a of arrivals)
      it(`a ${a.ext} file named ${a.name} sent as ${a.type ?? 'no type'} is a voice note, transcribed`, async () => {
        const before = sse.events.length;
        const { up, sent, m } = await sendFile(fixtures.audio[a.ext]!, a.name, a.type);
        assert.match(up.mime, /^audio\//, `recorded as audio by its bytes: ${up.mime}`);
        assert.equal(sent.kind, 'voice');
        assert.equal(m.transcript, '');
        assert.equal(m.failure, 'no_speech', 'transcribed to no words, so held: ' + JSON.stringify(m));
        await sse.waitUntil(() =>
          sse.events
            .slice(before)
            .some((e) => e.event === 'chat.updated' && e.data.change === 'transcript' && e.data.message.id === m.id),
        );
      });

    it('a video is a file, not a voice note, unless it claims to be audio: then it fails, saying it is a video', async () => {
      const plain = await sendFile(fixtures.video, 'clip', null);
      assert.equal(plain.sent.kind, 'text');
      assert.equal(plain.m.state, 'delivered');
      const claimed = await sendFile(fixtures.video, 'note.webm', 'audio/webm');
      assert.equal(claimed.sent.kind, 'voice');
      assert.equal(claimed.m.state, 'failed');
      assert.equal(claimed.m.transcript, undefined);
      assert.match(
        claimed.page.messages.at(-1).text,
        /^Couldn't transcribe your voice note: note\.webm is not audio: it is a video \(WebM\/Matroska\)\. The file was kept\.$/,
      );
    });

    it('a PNG named x.m4a, or sent as audio, fails with a note saying it is not audio', async () => {
      for (const [name, type] of [
        ['x.m4a', null],
        ['photo.png', 'audio/mp4'],
      ] as const) {
        const { sent, m, page } = await sendFile(fixtures.png, name, type);
        assert.equal(sent.kind, 'voice');
        assert.equal(m.state, 'failed');
        assert.equal(
          page.messages.at(-1).text,
          `Couldn't transcribe your voice note: ${name} is not audio: it is a PNG image. The file was kept.`,
        );
      }
      const asImage = await sendFile(fixtures.png, 'x.m4a', 'image/png');
      assert.equal(asImage.sent.kind, 'text', 'declared as what it is, it is a file');
    });

    it('audio that cannot be read fails the message with a note naming the cause, and keeps the file', async () => {
      // An M4A's first bytes with the rest cut off: audio by its magic, but nothing ffmpeg can decode.
      const junk = path.join(t.home, 'junk.m4a');
      fs.writeFileSync(junk, fs.readFileSync(m4a).subarray(0, 200));
      const up = await upload(junk, 'broken.m4a');
      const sent = await t.op('POST', '/api/v1/chat/den/messages', { attachments: [up.json.data.id] });
      const { m, page } = await settled(sent.json.data.id);
      assert.equal(m.state, 'failed');
      assert.match(
        page.messages.at(-1).text,
        /Couldn't transcribe your voice note \(ffmpeg\): .*The audio was kept\./s,
      );
      assert.ok(fs.existsSync(path.join(t.home, 'state', 'chat', 'attachments', 'den', up.json.data.id, 'broken.m4a')));
      assert.equal(
        (
          await request(t.tcp, 'GET', `/api/v1/chat/den/attachments/${up.json.data.id}`, {
            token: t.daemon.operatorToken,
          })
        ).status,
        200,
      );
    });
  },
);

interface Fixtures {
  /** About a second of espeak-ng speech in each container, keyed by extension. */
  audio: Record<string, string>;
  /** The same speech with a picture: a WebM video. */
  video: string;
  png: string;
}

/** Real files made by ffmpeg from one espeak-ng wav, once per run, small (about a second each). */
function makeFixtures(dir: string): Fixtures {
  const wav = path.join(dir, 'speech.wav');
  execFileSync('espeak-ng', ['-w', wav, 'Ship it tonight.'], { stdio: 'pipe' });
  const ff = (args: string[]) =>
    execFileSync('ffmpeg', ['-nostdin', '-loglevel', 'error', '-y', ...args], { stdio: 'pipe' });
  const codecs: Record<string, string> = {
    webm: 'libopus',
    ogg: 'libopus',
    m4a: 'aac',
    mp4: 'aac',
    caf: 'alac',
    aac: 'aac',
    flac: 'flac',
    mp3: 'libmp3lame',
  };
  const audio: Record<string, string> = {};
  for (const [ext, codec] of Object.entries(codecs)) {
    audio[ext] = path.join(dir, `note.${ext}`);
    ff(['-i', wav, '-c:a', codec, audio[ext]!]);
  }
  const video = path.join(dir, 'clip.webm');
  ff([
    '-f',
    'lavfi',
    '-i',
    'color=c=red:s=32x32:d=1',
    '-i',
    wav,
    '-c:v',
    'libvpx',
    '-c:a',
    'libopus',
    '-shortest',
    video,
  ]);
  const png = path.join(dir, 'photo.png');
  ff(['-f', 'lavfi', '-i', 'color=c=blue:s=8x8:d=1', '-frames:v', '1', png]);
  return { audio, video, png };
}
