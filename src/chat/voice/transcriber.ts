import os from 'node:os';
import PQueue from 'p-queue';
import type { Config } from '../../config/schema.js';
import { ffprobeBeside, resolveProgram } from '../../native/programs.js';

/** What the pool's transcription (workers/transcribe.ts) is sent. */
export interface TranscribeInput {
  /** The voice note as received (any format ffmpeg reads). Never modified or removed. */
  audio: string;
  /** ggml whisper model file. */
  model: string;
  whisperCli: string;
  ffmpeg: string;
  /** Judges whether the file is audio at all when its first bytes are unsure; null: ffmpeg alone decides. */
  ffprobe?: string | null;
  /** Where the temporary wav and transcript go (inside a private folder that is removed afterwards). */
  workDir: string;
  /** Budget for conversion plus recognition together; both programs are killed when it runs out. */
  timeoutMs?: number;
  /** whisper-cli `-t`; its own default (4, capped by the cores) when absent. */
  threads?: number;
}

export type TranscribeResult =
  | { ok: true; transcript: string; ms: number }
  | { ok: false; stage: 'not_audio' | 'ffmpeg' | 'whisper' | 'timeout' | 'missing'; error: string };

/**
 * How many voice notes transcribe at once: one pool thread is always left for the quick tasks (the activity sweep,
 * reply capture), which otherwise queued behind minutes of transcription (measured: 9 sweeps in 129 s instead of one a
 * second while 20 notes transcribed on a 2-thread pool).
 */
export function transcriptionLanes(poolThreads: number): number {
  return Math.max(1, poolThreads - 1);
}

/** ffprobe, which judges whether a file is audio: beside chat.ffmpeg when that is set, else as ffmpeg is found. */
export function ffprobePath(config: Config): string | null {
  return resolveProgram('ffprobe', ffprobeBeside(config.chat.ffmpeg), 'chat.ffmpeg').path;
}

export interface TranscriberDeps {
  config(): Config;
  /** Where each transcription's private temporary folder is made. */
  workDir: string;
  /** Runs one transcription on the worker pool. */
  run(input: TranscribeInput): Promise<TranscribeResult>;
}

/** Voice notes into text: the programs as leo.yaml names them now, a few notes at a time on the pool. */
export class Transcriber {
  private readonly lanes: PQueue;

  constructor(private readonly deps: TranscriberDeps) {
    this.lanes = new PQueue({ concurrency: transcriptionLanes(deps.config().pool.threads) });
  }

  /** Program and model paths are read at each transcription: setting them needs no restart. */
  async transcribe(audio: string): Promise<TranscribeResult> {
    const config = this.deps.config();
    const c = config.chat;
    if (!c.whisper_model)
      return { ok: false, stage: 'missing', error: 'no whisper model: set chat.whisper_model (leo doctor explains)' };
    const whisper = resolveProgram('whisper-cli', c.whisper_cli, 'chat.whisper_cli');
    const ffmpeg = resolveProgram('ffmpeg', c.ffmpeg, 'chat.ffmpeg');
    if (!whisper.path) return { ok: false, stage: 'missing', error: `whisper-cli not found (${whisper.source})` };
    if (!ffmpeg.path) return { ok: false, stage: 'missing', error: `ffmpeg not found (${ffmpeg.source})` };
    const lanes = transcriptionLanes(config.pool.threads);
    this.lanes.concurrency = lanes;
    const input = {
      audio,
      model: c.whisper_model,
      whisperCli: whisper.path,
      ffmpeg: ffmpeg.path,
      ffprobe: ffprobePath(config),
    };
    return this.lanes.add(() =>
      this.deps.run({
        ...input,
        workDir: this.deps.workDir,
        // The notes running at once share the cores rather than each taking whisper's default of four threads
        // (measured on 2 cores: 20 notes in 75–125 s at -t 2 each, 39–48 s at -t 1).
        threads: Math.max(1, Math.floor(os.availableParallelism() / lanes)),
      }),
    ) as Promise<TranscribeResult>;
  }
}
