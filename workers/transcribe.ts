import { spawn } from 'node:child_process';
import fs from 'node:fs/promises';
import { constants as fsConstants } from 'node:fs';
import path from 'node:path';
import type { TranscribeInput, TranscribeResult } from '../src/chat/voice/transcriber.js';
import { judgeAudio } from './audio-judge.js';

export const DEFAULT_TRANSCRIBE_TIMEOUT_MS = 120_000;
/** How much of a failing program's stderr goes into the error message. */
const STDERR_TAIL_CHARS = 600;

interface RunResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stderr: string;
  timedOut: boolean;
  spawnError?: Error;
}

/** Runs a program without a shell, keeps the end of its stderr, and kills it (SIGKILL) when `timeoutMs` runs out. */
function run(file: string, args: string[], timeoutMs: number): Promise<RunResult> {
  return new Promise((resolve) => {
    let stderr = '';
    let timedOut = false;
    let settled = false;
    const child = spawn(file, args, { stdio: ['ignore', 'ignore', 'pipe'], windowsHide: true });
    const timer = setTimeout(
      () => {
        timedOut = true;
        child.kill('SIGKILL');
      },
      Math.max(1, timeoutMs),
    );
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      stderr = (stderr + chunk).slice(-8 * STDERR_TAIL_CHARS);
    });
    const finish = (r: Omit<RunResult, 'stderr' | 'timedOut'>): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ ...r, stderr, timedOut });
    };
    child.on('error', (err) => finish({ code: null, signal: null, spawnError: err }));
    child.on('close', (code, signal) => finish({ code, signal }));
  });
}

function tail(text: string): string {
  const t = text.trim();
  return t.length > STDERR_TAIL_CHARS ? `…${t.slice(-STDERR_TAIL_CHARS)}` : t;
}

function describeFailure(name: string, r: RunResult): string {
  if (r.spawnError) return `${name} could not start: ${r.spawnError.message}`;
  const how = r.signal ? `was killed by ${r.signal}` : `exited with code ${r.code}`;
  const err = tail(r.stderr);
  return err ? `${name} ${how}: ${err}` : `${name} ${how}`;
}

async function checkFile(file: string, what: string, executable: boolean): Promise<string | null> {
  if (!file) return `${what} is not configured`;
  try {
    const st = await fs.stat(file);
    if (!st.isFile()) return `${what} is not a file: ${file}`;
    await fs.access(file, executable ? fsConstants.X_OK : fsConstants.R_OK);
    return null;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return `${what} not found: ${file}`;
    return `${what} is not ${executable ? 'executable' : 'readable'}: ${file} (${code ?? String(err)})`;
  }
}

/**
 * Transcribes one voice note: ffmpeg converts it to 16 kHz mono 16-bit wav, then whisper-cli writes a txt transcript.
 * Never throws. whisper-cli exits 0 when it cannot read its input, so a missing transcript file counts as a failure.
 * The transcript's segment lines are trimmed and joined with single spaces; an empty string is a valid result
 * (silence, or a weightless test model).
 */
export async function transcribe(input: TranscribeInput): Promise<TranscribeResult> {
  const started = Date.now();
  const timeoutMs = input.timeoutMs ?? DEFAULT_TRANSCRIBE_TIMEOUT_MS;
  const remaining = (): number => timeoutMs - (Date.now() - started);

  for (const [file, what, exec] of [
    [input.audio, 'audio file', false],
    [input.model, 'whisper model', false],
    [input.ffmpeg, 'ffmpeg', true],
    [input.whisperCli, 'whisper-cli', true],
  ] as const) {
    const problem = await checkFile(file, what, exec);
    if (problem) return { ok: false, stage: 'missing', error: problem };
  }
  // Uploads are voice notes by their claim too (a name, a declared type): the bytes must bear it out.
  const verdict = await judgeAudio({ file: input.audio, ffprobe: input.ffprobe ?? null });
  if (!verdict.audio)
    return { ok: false, stage: 'not_audio', error: `${path.basename(input.audio)} is not audio: ${verdict.why}` };

  let tmp: string;
  try {
    await fs.mkdir(input.workDir, { recursive: true });
    tmp = await fs.mkdtemp(path.join(input.workDir, 'transcribe-'));
  } catch (err) {
    return { ok: false, stage: 'missing', error: `work folder unusable: ${input.workDir} (${(err as Error).message})` };
  }
  try {
    const wav = path.join(tmp, 'audio.wav');
    const outBase = path.join(tmp, 'transcript');

    const ffArgs = ['-nostdin', '-hide_banner', '-loglevel', 'error', '-y', '-i', input.audio, '-vn'];
    ffArgs.push('-ac', '1', '-ar', '16000', '-c:a', 'pcm_s16le', wav);
    const ff = await run(input.ffmpeg, ffArgs, remaining());
    if (ff.timedOut) return { ok: false, stage: 'timeout', error: `ffmpeg took longer than ${timeoutMs} ms` };
    if (ff.spawnError || ff.code !== 0) return { ok: false, stage: 'ffmpeg', error: describeFailure('ffmpeg', ff) };
    const wavSize = await fs.stat(wav).then(
      (s) => s.size,
      () => -1,
    );
    if (wavSize <= 44) {
      const why = wavSize < 0 ? 'wrote no wav file' : 'produced no audio';
      const err = tail(ff.stderr);
      return { ok: false, stage: 'ffmpeg', error: `ffmpeg ${why}${err ? `: ${err}` : ''}` };
    }

    if (remaining() <= 0) return { ok: false, stage: 'timeout', error: `ffmpeg took longer than ${timeoutMs} ms` };
    const args = ['-m', input.model, '-f', wav, '-otxt', '-of', outBase, '-np'];
    if (input.threads && input.threads > 0) args.push('-t', String(Math.floor(input.threads)));
    const wh = await run(input.whisperCli, args, remaining());
    if (wh.timedOut) return { ok: false, stage: 'timeout', error: `whisper-cli took longer than ${timeoutMs} ms` };
    if (wh.spawnError || wh.code !== 0)
      return { ok: false, stage: 'whisper', error: describeFailure('whisper-cli', wh) };

    let text: string;
    try {
      text = await fs.readFile(`${outBase}.txt`, 'utf8');
    } catch {
      const err = tail(wh.stderr);
      return {
        ok: false,
        stage: 'whisper',
        error: `whisper-cli exited 0 but wrote no transcript${err ? `: ${err}` : ''}`,
      };
    }
    const transcript = text
      .split('\n')
      .map((l) => l.trim())
      .filter(Boolean)
      .join(' ');
    return { ok: true, transcript, ms: Date.now() - started };
  } catch (err) {
    return { ok: false, stage: 'whisper', error: `transcription failed: ${(err as Error).message ?? String(err)}` };
  } finally {
    await fs.rm(tmp, { recursive: true, force: true }).catch(() => undefined);
  }
}
