import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { findOnPath, nativeBinDir } from '../../src/native/programs.js';
import { transcribe } from '../../workers/transcribe.js';
import { SMALLEST_HPARAMS, writeWeightlessModel } from '../helpers/whisper-model.js';

const whisperCli = path.join(nativeBinDir(), 'whisper-cli');
const skip = fs.existsSync(whisperCli)
  ? false
  : `whisper-cli is not built at ${whisperCli} (run: node native-bins/setup.mjs --for-tests)`;

describe('transcribe (ffmpeg + whisper-cli, weightless model)', { skip }, () => {
  let dir = '';
  let workDir = '';
  let model = '';
  let ffmpeg = '';
  const audio: Record<'m4a' | 'ogg', string> = { m4a: '', ogg: '' };

  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'leo-transcribe-'));
    workDir = path.join(dir, 'work');
    model = writeWeightlessModel(path.join(dir, 'ggml-weightless-tiny.en.bin'), SMALLEST_HPARAMS);
    ffmpeg = findOnPath('ffmpeg') ?? 'ffmpeg';
    const espeak = findOnPath('espeak-ng') ?? 'espeak-ng';
    const wav = path.join(dir, 'speech.wav');
    execFileSync(espeak, ['-w', wav, 'Remind me to water the plants tomorrow morning.'], { stdio: 'pipe' });
    const enc = (out: string, codec: string[]): string => {
      execFileSync(ffmpeg, ['-nostdin', '-loglevel', 'error', '-y', '-i', wav, ...codec, out], { stdio: 'pipe' });
      return out;
    };
    audio.m4a = enc(path.join(dir, 'note.m4a'), ['-c:a', 'aac', '-b:a', '64k']);
    audio.ogg = enc(path.join(dir, 'note.ogg'), ['-c:a', 'libopus', '-b:a', '32k']);
  });

  after(() => {
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  const base = () => ({ model, whisperCli, ffmpeg, workDir, threads: 2, timeoutMs: 60_000 });
  const assertCleanWorkDir = () => {
    const left = fs.existsSync(workDir) ? fs.readdirSync(workDir) : [];
    assert.deepEqual(left, [], 'temp files left in workDir');
  };

  for (const format of ['m4a', 'ogg'] as const) {
    it(`converts ${format} and returns an empty transcript`, async () => {
      const before = fs.readFileSync(audio[format]);
      const r = await transcribe({ ...base(), audio: audio[format] });
      assert.equal(r.ok, true, JSON.stringify(r));
      if (!r.ok) return;
      assert.equal(r.transcript, '');
      assert.ok(r.ms > 0 && r.ms < 60_000, `ms=${r.ms}`);
      assert.deepEqual(fs.readFileSync(audio[format]), before, 'input audio changed');
      assertCleanWorkDir();
    });
  }

  it('reports stage ffmpeg for a file that is not audio', async () => {
    const bad = path.join(dir, 'garbage.m4a');
    fs.writeFileSync(bad, crypto.randomBytes(4096));
    const r = await transcribe({ ...base(), audio: bad });
    assert.equal(r.ok, false);
    if (r.ok) return;
    assert.equal(r.stage, 'ffmpeg');
    assert.match(r.error, /^ffmpeg exited with code \d+: \S/);
    assert.ok(fs.existsSync(bad), 'input audio removed');
    assertCleanWorkDir();
  });

  it('reports stage missing for a missing model, binary or audio', async () => {
    const noModel = await transcribe({ ...base(), audio: audio.m4a, model: path.join(dir, 'nope.bin') });
    assert.deepEqual(noModel, { ok: false, stage: 'missing', error: `whisper model not found: ${dir}/nope.bin` });
    const noCli = await transcribe({ ...base(), audio: audio.m4a, whisperCli: path.join(dir, 'no-whisper-cli') });
    assert.equal(noCli.ok, false);
    if (!noCli.ok) assert.match(noCli.error, /^whisper-cli not found: /);
    const noAudio = await transcribe({ ...base(), audio: path.join(dir, 'gone.ogg') });
    assert.equal(noAudio.ok, false);
    if (!noAudio.ok) assert.equal(noAudio.stage, 'missing');
    assert.ok(fs.existsSync(audio.m4a), 'input audio removed');
  });

  it('treats a whisper-cli that exits 0 without a transcript as a failure', async () => {
    const fake = path.join(dir, 'fake-whisper-cli');
    fs.writeFileSync(fake, '#!/bin/sh\necho "error: failed to read audio" >&2\nexit 0\n', { mode: 0o755 });
    const r = await transcribe({ ...base(), audio: audio.ogg, whisperCli: fake });
    assert.equal(r.ok, false);
    if (r.ok) return;
    assert.equal(r.stage, 'whisper');
    assert.match(r.error, /wrote no transcript: error: failed to read audio/);
    assert.ok(fs.existsSync(audio.ogg));
    assertCleanWorkDir();
  });

  it('reports stage whisper when whisper-cli rejects the model', async () => {
    const junk = path.join(dir, 'junk-model.bin');
    fs.writeFileSync(junk, Buffer.from('not a ggml model at all'));
    const r = await transcribe({ ...base(), audio: audio.ogg, model: junk });
    assert.equal(r.ok, false);
    if (r.ok) return;
    assert.equal(r.stage, 'whisper');
    assert.match(r.error, /^whisper-cli exited with code \d+/);
    assertCleanWorkDir();
  });

  it('kills the programs and reports stage timeout when the budget runs out', async () => {
    const r = await transcribe({ ...base(), audio: audio.m4a, timeoutMs: 1 });
    assert.equal(r.ok, false);
    if (r.ok) return;
    assert.equal(r.stage, 'timeout');
    assert.ok(fs.existsSync(audio.m4a));
    assertCleanWorkDir();
  });
});
