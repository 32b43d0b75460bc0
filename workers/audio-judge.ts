import { execFile } from 'node:child_process';
import fs from 'node:fs/promises';
import {
  HEAD_BYTES,
  sniffMedia,
  type AudioVerdict,
  type JudgeAudioInput,
} from '../src/chat/attachments/audio-magic.js';

const PROBE_TIMEOUT_MS = 10_000;

/** The kinds of stream ffprobe finds in a file, or null when it cannot read the file at all. */
function streamKinds(ffprobe: string, file: string): Promise<string[] | null> {
  const args = ['-v', 'error', '-show_entries', 'stream=codec_type', '-of', 'csv=p=0', file];
  return new Promise((resolve) => {
    execFile(ffprobe, args, { timeout: PROBE_TIMEOUT_MS }, (err, stdout) => {
      if (err) return resolve(null);
      resolve(
        stdout
          .split('\n')
          .map((l) => l.trim())
          .filter(Boolean),
      );
    });
  });
}

async function readHead(file: string): Promise<Buffer> {
  const fh = await fs.open(file, 'r');
  try {
    const buf = Buffer.alloc(HEAD_BYTES);
    const { bytesRead } = await fh.read(buf, 0, HEAD_BYTES, 0);
    return buf.subarray(0, bytesRead);
  } finally {
    await fh.close();
  }
}

/**
 * Whether a file is audio, by its bytes: the magic bytes first, ffprobe when they are unsure (a container that may
 * hold video, or nothing recognised): audio is at least one audio stream and no video. Never throws.
 */
export async function judgeAudio(input: JudgeAudioInput): Promise<AudioVerdict> {
  let head: Buffer;
  try {
    head = await readHead(input.file);
  } catch (err) {
    return { audio: false, why: `it cannot be read (${(err as NodeJS.ErrnoException).code ?? String(err)})` };
  }
  if (head.length === 0) return { audio: false, why: 'it is empty' };
  const sniff = sniffMedia(head);
  if (sniff.verdict === 'audio') return { audio: true, mime: sniff.mime };
  if (sniff.verdict === 'other') return { audio: false, why: `it is ${sniff.format}` };
  const mime = sniff.verdict === 'container' ? sniff.mime : null;
  if (!input.ffprobe) return { audio: true, mime };
  const kinds = await streamKinds(input.ffprobe, input.file);
  if (kinds === null) return { audio: false, why: 'ffprobe cannot read it as audio or video' };
  if (kinds.includes('video'))
    return { audio: false, why: `it is a video${sniff.verdict === 'container' ? ` (${sniff.format})` : ''}` };
  if (!kinds.includes('audio')) return { audio: false, why: 'it has no audio stream' };
  return { audio: true, mime };
}
