import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { nativeBinDir } from '../../src/native/programs.js';
import { paneText, startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { request } from '../helpers/http.js';
import { SseClient } from '../helpers/sse-client.js';
import { writeWeightlessModel } from '../helpers/whisper-model.js';

const whisperBuilt = fs.existsSync(path.join(nativeBinDir(), 'whisper-cli'));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe(
  'voice notes: audio upload → ffmpeg + whisper-cli on the pool → delivered',
  { skip: whisperBuilt ? false : 'whisper-cli is not built (run: node native-bins/setup.mjs --for-tests)' },
  () => {
    let t: TestDaemon;
    let sse: SseClient;
    let m4a = '';
    const op = (method: string, p: string, body?: unknown) =>
      request(t.tcp, method, p, { token: t.daemon.operatorToken, body });
    const upload = (file: string, name: string) =>
      request(t.tcp, 'POST', `/api/v1/chat/uploads?filename=${name}&agent=den`, {
        token: t.daemon.operatorToken,
        rawBody: fs.readFileSync(file),
        headers: { 'content-type': 'audio/mp4' },
      });
    const settled = async (id: string) => {
      for (let i = 0; i < 300; i++) {
        const page = (await op('GET', '/api/v1/chat/den/messages')).json.data;
        const m = page.messages.find((x: { id: string }) => x.id === id);
        if (m.state !== 'pending') return { m, page };
        await sleep(100);
      }
      throw new Error('still pending');
    };

    before(async () => {
      const scratch = fs.mkdtempSync('/tmp/leo-voice-');
      const model = writeWeightlessModel(path.join(scratch, 'ggml-tiny.en.bin'));
      const wav = path.join(scratch, 'speech.wav');
      execFileSync('espeak-ng', ['-w', wav, 'Please ship the release tonight.'], { stdio: 'pipe' });
      m4a = path.join(scratch, 'note.m4a');
      execFileSync('ffmpeg', ['-nostdin', '-loglevel', 'error', '-y', '-i', wav, '-c:a', 'aac', m4a], {
        stdio: 'pipe',
      });
      t = await startTestDaemon({
        config: `chat:\n  whisper_model: ${model}\ntemplates:\n  cat: { harness: shell, command: "exec cat" }\n`,
      });
      await op('POST', '/api/v1/agents/spawn', { template: 'cat', name: 'den' });
      sse = await SseClient.open(t.tcp, '/api/v1/events', t.daemon.operatorToken);
      await sse.waitFor(1);
    });
    after(async () => {
      sse.close();
      await t.stop();
    });

    it('an m4a upload makes a voice note; the real pipeline runs and the message is delivered with its transcript', async () => {
      const up = await upload(m4a, 'note.m4a');
      assert.equal(up.status, 201, up.text);
      const sent = await op('POST', '/api/v1/chat/den/messages', { attachments: [up.json.data.id] });
      assert.equal(sent.json.data.kind, 'voice');
      const { m } = await settled(sent.json.data.id);
      assert.equal(m.state, 'delivered');
      assert.equal(m.transcript, '', 'the weightless model transcribes to nothing, but the whole pipeline ran');
      assert.ok(sse.events.some((e) => e.event === 'chat.updated' && e.data.change === 'transcript'));
      const file = path.join(t.home, 'state', 'chat', 'attachments', 'den', up.json.data.id, 'note.m4a');
      await sleep(300);
      assert.ok(paneText(t.home, 'den', 50).replace(/\s/g, '').includes(`Attachments:${file}`));
    });

    it('audio that cannot be read fails the message with a note naming the cause, and keeps the file', async () => {
      const junk = path.join(t.home, 'junk.m4a');
      fs.writeFileSync(junk, Buffer.alloc(4096, 7));
      const up = await upload(junk, 'broken.m4a');
      const sent = await op('POST', '/api/v1/chat/den/messages', { attachments: [up.json.data.id] });
      const { m, page } = await settled(sent.json.data.id);
      assert.equal(m.state, 'failed');
      assert.match(
        page.messages.at(-1).text,
        /Couldn't transcribe your voice note \(ffmpeg\): .*Invalid data.*The audio was kept\./s,
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
