/**
 * What transcribing voice notes costs the main thread's event loop: the same N notes (espeak-ng speech, encoded once
 * to m4a) are transcribed through Leo's Piscina pool and then directly on the main thread, both capped at the same
 * concurrency, while the event-loop delay histogram and a 10 ms interval timer watch the main thread. Prints wall
 * time, delay percentiles and transcription outcomes per row; asserts nothing.
 *
 *   npx tsc -p tsconfig.json && node dist/benchmarks/voice-loop.js [--notes 20] [--threads 2] [--whisper-threads 2]
 *
 * Without LEO_BENCH_WHISPER_MODEL (a real ggml model) it uses the weightless test model, which recognises nothing but
 * runs whisper-cli's whole pipeline, so the child processes do comparable work.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import PQueue from 'p-queue';
import { findOnPath, resolveProgram } from '../src/native/programs.js';
import { WorkerPool } from '../src/pool/worker-pool.js';
import type { TranscribeInput, TranscribeResult } from '../src/chat/voice/transcriber.js';
import { transcribe } from '../workers/transcribe.js';
import { writeWeightlessModel } from '../test/helpers/whisper-model.js';
import { int, options } from './lib/options.js';
import { mainThreadCpuMs, quantile, table } from './lib/report.js';

/** Hard stop: 20 notes per row took 1.5 to 4 minutes in all on two cores shared with other work. */
const BUDGET_MS = 5 * 60_000;
const RESOLUTION_MS = 10;
const IDLE_MS = 3_000;
/** As the transcribe tests; the daemon's 120 s default would let one stuck note eat half the budget. */
const NOTE_TIMEOUT_MS = 60_000;
/** The pool's queue bound (config pool.max_queue); more notes than this at once would be rejected, not measured. */
const MAX_QUEUE = 100;
const SENTENCE = 'Remind me to water the plants tomorrow morning, and to call the plumber about the kitchen sink.';

const {
  notes,
  threads,
  'whisper-threads': whisperThreads,
} = options({
  notes: int(20),
  threads: int(2),
  // 2 as the transcribe tests pass; the daemon passes none, and whisper-cli's default (4) is capped to the cores.
  'whisper-threads': int(2),
});
if (notes > MAX_QUEUE) throw new Error(`--notes is at most ${MAX_QUEUE}, the pool's queue length`);
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'leo-bench-voice-'));

/**
 * SIGKILLs this process's ffmpeg and whisper-cli children (the pool's threads spawn them under the same pid), which
 * would otherwise outlive an abort or a SIGTERM and keep the cores busy; Linux only, a no-op elsewhere.
 */
function killChildren(): void {
  let pids: string[];
  try {
    pids = fs.readdirSync('/proc').filter((e) => /^\d+$/.test(e));
  } catch {
    return;
  }
  for (const pid of pids) {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === process.pid)
        process.kill(Number(pid), 'SIGKILL');
    } catch {
      // exited meanwhile
    }
  }
}

let cleaned = false;
function cleanup(): void {
  if (cleaned) return;
  cleaned = true;
  // Synchronous, so it also runs from the exit and signal handlers.
  killChildren();
  fs.rmSync(dir, { recursive: true, force: true });
}
process.on('exit', cleanup);
for (const sig of ['SIGINT', 'SIGTERM'] as const)
  process.on(sig, () => {
    cleanup();
    process.exit(130);
  });
setTimeout(() => {
  console.error(`(aborting: over the ${BUDGET_MS / 60_000} minute budget)`);
  process.exit(1);
}, BUDGET_MS).unref();

const fmt = (v: number | null, digits = 1) => (v === null || Number.isNaN(v) ? 'n/a' : v.toFixed(digits));

/** Whole process (all JS threads, not the child programs), ms. */
function processCpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

interface Row {
  name: string;
  wallMs: number;
  eldP50: number;
  eldP99: number;
  eldMax: number;
  lagP99: number;
  lagMax: number;
  mainCpuMs: number | null;
  workerCpuMs: number | null;
  ok: number;
  failed: number;
}

/** Runs `work` while both probes watch the main thread; delays are in ms beyond the 10 ms they were due after. */
async function watch(name: string, work: () => Promise<TranscribeResult[]>): Promise<Row> {
  const eld = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  const lags: number[] = [];
  let last = performance.now();
  const ticker = setInterval(() => {
    const now = performance.now();
    lags.push(Math.max(0, now - last - RESOLUTION_MS));
    last = now;
  }, RESOLUTION_MS);
  eld.enable();
  const main0 = mainThreadCpuMs();
  const all0 = processCpuMs();
  const t0 = performance.now();
  const results = await work();
  const wallMs = performance.now() - t0;
  const main1 = mainThreadCpuMs();
  const all1 = processCpuMs();
  eld.disable();
  clearInterval(ticker);
  const mainCpuMs = main0 === null || main1 === null ? null : main1 - main0;
  // The histogram records each whole interval (an idle loop reads ~10.1 ms), so the resolution is taken off.
  const over = (ns: number) => Math.max(0, ns / 1e6 - RESOLUTION_MS);
  const failures = results.filter((r) => !r.ok);
  for (const f of failures.slice(0, 3)) if (!f.ok) console.log(`  ${name}: ${f.stage}: ${f.error}`);
  return {
    name,
    wallMs,
    eldP50: over(eld.percentile(50)),
    eldP99: over(eld.percentile(99)),
    eldMax: over(eld.max),
    lagP99: quantile(lags, 0.99),
    lagMax: Math.max(...lags),
    mainCpuMs,
    workerCpuMs: mainCpuMs === null ? null : Math.max(0, all1 - all0 - mainCpuMs),
    ok: results.length - failures.length,
    failed: failures.length,
  };
}

function program(name: string): string {
  const found = resolveProgram(name, undefined, name);
  if (!found.path) throw new Error(`${name} not found (${found.source})`);
  return found.path;
}

async function main(): Promise<void> {
  const started = performance.now();
  const ffmpeg = program('ffmpeg');
  const whisperCli = program('whisper-cli');
  const envModel = process.env.LEO_BENCH_WHISPER_MODEL;
  if (envModel && !fs.existsSync(envModel)) throw new Error(`LEO_BENCH_WHISPER_MODEL not found: ${envModel}`);
  const model = envModel || writeWeightlessModel(path.join(dir, 'ggml-weightless-tiny.en.bin'));

  const wav = path.join(dir, 'speech.wav');
  execFileSync(findOnPath('espeak-ng') ?? 'espeak-ng', ['-w', wav, SENTENCE], { stdio: 'pipe' });
  const m4a = path.join(dir, 'note.m4a');
  execFileSync(ffmpeg, ['-nostdin', '-loglevel', 'error', '-y', '-i', wav, '-c:a', 'aac', m4a], { stdio: 'pipe' });
  // Separate files, as real notes are, so neither row reads one cached path over and over.
  const inputs: TranscribeInput[] = Array.from({ length: notes }, (_, i) => {
    const audio = path.join(dir, `note-${i}.m4a`);
    fs.copyFileSync(m4a, audio);
    const workDir = path.join(dir, 'work');
    return { audio, model, whisperCli, ffmpeg, workDir, threads: whisperThreads, timeoutMs: NOTE_TIMEOUT_MS };
  });

  console.log(
    `${notes} notes of ${fmt(fs.statSync(m4a).size / 1024)} KiB m4a; ${threads} at a time; whisper-cli -t ${whisperThreads};` +
      ` model ${envModel ? envModel : 'weightless tiny.en'}; ${os.availableParallelism()} cores`,
  );

  const pool = new WorkerPool({ threads, maxQueue: MAX_QUEUE });
  try {
    // Warm-up, unmeasured: starts every pool thread (a running daemon keeps them for 30 s after a note) and puts
    // ffmpeg, whisper-cli and the model in the page cache for both rows alike.
    const warm = await Promise.all([
      ...Array.from({ length: threads }, () => pool.run('transcribe', inputs[0]!)),
      transcribe(inputs[0]!),
    ]);
    const bad = warm.find((r) => !r.ok);
    if (bad && !bad.ok) throw new Error(`warm-up transcription failed (${bad.stage}): ${bad.error}`);
    console.log(`warm-up done in ${fmt((performance.now() - started) / 1000)} s`);

    const rows: Row[] = [];
    rows.push(await watch('idle (reference)', () => sleep(IDLE_MS).then(() => [])));
    rows.push(await watch('pool', () => Promise.all(inputs.map((input) => pool.run('transcribe', input)))));
    console.log(`pool row done: ${fmt(rows.at(-1)!.wallMs / 1000)} s`);
    const queue = new PQueue({ concurrency: threads });
    rows.push(await watch('main thread', () => Promise.all(inputs.map((input) => queue.add(() => transcribe(input))))));
    console.log(`main thread row done: ${fmt(rows.at(-1)!.wallMs / 1000)} s`);

    console.log(
      `\nevent-loop delay = monitorEventLoopDelay({resolution: ${RESOLUTION_MS}}) less the ${RESOLUTION_MS} ms interval;` +
        ` timer lag = how late a ${RESOLUTION_MS} ms setInterval fired; CPU is this process's threads` +
        ` (10 ms /proc ticks), not ffmpeg's or whisper-cli's\n`,
    );
    const head = [
      'row',
      'wall s',
      'ELD p50 ms',
      'ELD p99 ms',
      'ELD max ms',
      'lag p99 ms',
      'lag max ms',
      'main CPU ms',
      'other threads CPU ms',
      'ok',
      'failed',
    ];
    const body = rows.map((r) => [
      r.name,
      fmt(r.wallMs / 1000),
      fmt(r.eldP50, 2),
      fmt(r.eldP99, 2),
      fmt(r.eldMax, 2),
      fmt(r.lagP99, 2),
      fmt(r.lagMax, 2),
      fmt(r.mainCpuMs, 0),
      fmt(r.workerCpuMs, 0),
      String(r.ok),
      String(r.failed),
    ]);
    table(head, body);

    const [, onPool, onMain] = rows as [Row, Row, Row];
    // Sub-millisecond p99s make the ratio jumpy; the absolute figures above are the ones to read.
    const ratio = (a: number, b: number) => (b > 0 ? `${fmt(a / b, 2)}x` : 'n/a (pool p99 is 0)');
    console.log(
      `\np99 main thread / pool: event-loop delay ${ratio(onMain.eldP99, onPool.eldP99)},` +
        ` timer lag ${ratio(onMain.lagP99, onPool.lagP99)}`,
    );
    console.log(`total ${fmt((performance.now() - started) / 1000)} s`);
  } finally {
    await pool.close();
  }
}

main()
  .catch((err) => {
    console.error(err);
    process.exitCode = 1;
  })
  .finally(cleanup);
