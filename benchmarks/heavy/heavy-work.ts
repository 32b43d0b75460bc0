/**
 * The main thread never blocks: while N subscribers stream Leo's /api/v1/events (a separate process) and the
 * daemon publishes a timestamped event R times a second, it transcribes V voice notes and sweeps a fleet of A tmux
 * sessions every second — first through the Piscina pool, then with the same work called on the main thread. Per
 * phase it prints the main thread's event-loop delay p50/p99/max and the subscribers' publish→receive latency, side
 * by side with an idle phase. Asserts nothing.
 *
 *   npx tsc -p tsconfig.json && node dist/benchmarks/heavy/heavy-work.js \
 *     [--subscribers 1000] [--notes 20] [--agents 200] [--rate 20]
 *
 * The daemon is the real one, in this process (so its main thread is this one), on a throwaway LEO_HOME; the fleet
 * lives on a private tmux server of its own. Without LEO_BENCH_WHISPER_MODEL the weightless test model is used: it
 * recognises nothing but runs ffmpeg and whisper-cli's whole pipeline.
 */
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';
import readline from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import PQueue from 'p-queue';
import { systemClock } from '../../src/core/clock.js';
import { realExec } from '../../src/core/exec.js';
import { createLogger } from '../../src/core/logger.js';
import { transcriptionLanes, type TranscribeInput } from '../../src/chat/voice/transcriber.js';
import { startDaemon, type Daemon } from '../../src/daemon/daemon.js';
import type { EventType } from '../../src/wire/event-types.js';
import type { EventFields } from '../../src/wire/events.js';
import { findOnPath, resolveProgram } from '../../src/native/programs.js';
import { Tmux } from '../../src/tmux/tmux.js';
import { writeWeightlessModel } from '../../test/helpers/whisper-model.js';
import { runSweep } from '../../workers/sweep.js';
import { int, options } from '../lib/options.js';
import { transcribe } from '../../workers/transcribe.js';

const BUDGET_MS = 8 * 60_000;
const POOL_THREADS = 2;
const SENTENCE = 'Move the stand-up to ten and tell the team the build is green.';

const { subscribers, notes, agents, rate } = options({
  subscribers: int(1000),
  notes: int(20),
  agents: int(200),
  // 20 events/s to 1 000 subscribers is 20 000 deliveries/s: heavy streaming that leaves the loop room to measure.
  rate: int(20),
});

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'leo-bench-heavy-'));
const home = path.join(dir, 'home');
const fleetSocket = path.join(dir, 'fleet.sock');
let child: ReturnType<typeof spawn> | null = null;
let daemon: Daemon | null = null;

function cleanup(): void {
  child?.kill('SIGKILL');
  try {
    execFileSync('tmux', ['-S', fleetSocket, 'kill-server'], { stdio: 'ignore' });
  } catch {
    // no fleet left
  }
  try {
    execFileSync('tmux', ['-S', path.join(home, 'state', 'tmux.sock'), 'kill-server'], { stdio: 'ignore' });
  } catch {
    // the daemon never started one
  }
  fs.rmSync(dir, { recursive: true, force: true });
}
process.on('exit', cleanup);
for (const sig of ['SIGINT', 'SIGTERM'] as const)
  process.on(sig, () => {
    cleanup();
    process.exit(130);
  });
setTimeout(() => {
  console.error(`heavy-work: over the ${BUDGET_MS / 60_000} minute budget, stopping`);
  process.exit(1);
}, BUDGET_MS).unref();

const now = () => performance.timeOrigin + performance.now();

/** The fleet: A sessions printing a line a second, so every sweep has captures to make. */
async function startFleet(): Promise<Tmux> {
  const tmux = new Tmux({ socketPath: fleetSocket, exec: realExec });
  for (let i = 0; i < agents; i++)
    await tmux.newSession({
      name: `bench-${i}`,
      cwd: dir,
      command: ['sh', '-c', 'i=0; while :; do i=$((i+1)); echo "step $i of the build"; sleep 1; done'],
    });
  return tmux;
}

function voiceInputs(): TranscribeInput[] {
  const ffmpeg = resolveProgram('ffmpeg', undefined, 'ffmpeg').path;
  const whisperCli = resolveProgram('whisper-cli', undefined, 'whisper-cli').path;
  if (!ffmpeg || !whisperCli) throw new Error('ffmpeg and whisper-cli are needed (npm test sets them up)');
  const model = process.env.LEO_BENCH_WHISPER_MODEL || writeWeightlessModel(path.join(dir, 'weightless.bin'));
  const wav = path.join(dir, 'note.wav');
  const m4a = path.join(dir, 'note.m4a');
  execFileSync(findOnPath('espeak-ng') ?? 'espeak-ng', ['-w', wav, SENTENCE], { stdio: 'pipe' });
  execFileSync(ffmpeg, ['-nostdin', '-loglevel', 'error', '-y', '-i', wav, '-c:a', 'aac', m4a], { stdio: 'pipe' });
  const workDir = path.join(dir, 'work');
  fs.mkdirSync(workDir);
  return Array.from({ length: notes }, () => ({
    audio: m4a,
    model,
    whisperCli,
    ffmpeg,
    workDir,
    threads: Math.max(1, Math.floor(os.availableParallelism() / transcriptionLanes(POOL_THREADS))),
  }));
}

interface Phase {
  name: string;
  wallMs: number;
  eld: { p50: number; p99: number; max: number };
  transcribed: number;
  sweeps: number;
}

/** Runs `work` while the event-loop delay histogram watches; the subscribers file their latencies under `name`. */
async function phase(
  name: string,
  say: (line: string) => void,
  work: () => Promise<{ transcribed: number; sweeps: number }>,
): Promise<Phase> {
  say(`phase ${name}`);
  const h = monitorEventLoopDelay({ resolution: 10 });
  h.enable();
  const t0 = performance.now();
  const done = await work();
  const wallMs = performance.now() - t0;
  h.disable();
  // The histogram counts the 10 ms sampling interval itself.
  const ms = (ns: number) => Math.max(0, ns / 1e6 - 10);
  return { name, wallMs, eld: { p50: ms(h.percentile(50)), p99: ms(h.percentile(99)), max: ms(h.max) }, ...done };
}

/** Sweeps the fleet every second until `until` settles, through `sweepOnce`. */
async function sweepsDuring(
  until: Promise<unknown>,
  sweepOnce: (previous: Record<string, number>) => Promise<{ sessions: { name: string; activity: number }[] }>,
): Promise<number> {
  let finished = false;
  void until.finally(() => (finished = true));
  let previous: Record<string, number> = {};
  let n = 0;
  while (!finished) {
    const r = await sweepOnce(previous);
    previous = Object.fromEntries(r.sessions.map((s) => [s.name, s.activity]));
    n++;
    await Promise.race([sleep(1000), until]);
  }
  return n;
}

async function main(): Promise<void> {
  console.log(
    `heavy-work: ${subscribers} subscribers, ${rate} events/s, ${notes} voice notes, ${agents} agents, pool of ${POOL_THREADS}`,
  );
  console.log(
    `machine: ${os.cpus()[0]?.model ?? '?'} × ${os.cpus().length}, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB, node ${process.version}`,
  );
  const fleet = await startFleet();
  const inputs = voiceInputs();
  fs.mkdirSync(home, { recursive: true });
  fs.writeFileSync(
    path.join(home, 'leo.yaml'),
    `web:\n  listen: 127.0.0.1:0\n  sse_queue: 100000\nlog:\n  level: error\npool:\n  threads: ${POOL_THREADS}\n`,
  );
  daemon = await startDaemon({
    env: { ...process.env, LEO_HOME: home, LEO_USER_HOME: home },
    clock: systemClock,
    logger: createLogger('error'),
  });
  const d = daemon;

  const script = fileURLToPath(new URL('./subscribers.js', import.meta.url));
  child = spawn(
    'sh',
    [
      '-c',
      `ulimit -n $(ulimit -Hn) 2>/dev/null; exec "${process.execPath}" "${script}" ${d.port} ${d.operatorToken} ${subscribers}`,
    ],
    {
      stdio: ['pipe', 'pipe', 'inherit'],
    },
  );
  const replies = readline.createInterface({ input: child.stdout! });
  const say = (line: string) => child!.stdin!.write(line + '\n');
  const report = () =>
    new Promise<any>((resolve) => {
      replies.once('line', (l) => resolve(JSON.parse(l)));
      say('report');
    });
  // A type of the benchmark's own, unregistered: it reaches chat readers, which the operator-token subscribers are.
  const ticker = setInterval(
    () => d.bus.publish('bench_tick' as EventType, { sent: now() } as EventFields<EventType>),
    1000 / rate,
  );
  await sleep(3000);
  const warm = await report();
  console.log(`subscribers connected: ${warm.open}/${subscribers}`);

  const rows: Phase[] = [];
  rows.push(await phase('idle', say, async () => (await sleep(3000), { transcribed: 0, sweeps: 0 })));
  rows.push(
    await phase('pool', say, async () => {
      // As the daemon sends them: at most transcriptionLanes() at once, so a pool thread stays free for sweeps.
      const q = new PQueue({ concurrency: transcriptionLanes(POOL_THREADS) });
      const all = Promise.all(inputs.map((input) => q.add(() => d.pool.run('transcribe', input))));
      const sweeps = await sweepsDuring(all, (previous) => d.pool.run('sweep', { socketPath: fleetSocket, previous }));
      return { transcribed: (await all).filter((r) => r.ok).length, sweeps };
    }),
  );
  rows.push(
    await phase('main-thread', say, async () => {
      const q = new PQueue({ concurrency: transcriptionLanes(POOL_THREADS) });
      const all = Promise.all(inputs.map((input) => q.add(() => transcribe(input))));
      const sweeps = await sweepsDuring(all, (previous) => runSweep(fleet, { previous }));
      return { transcribed: (await all).filter((r) => r?.ok).length, sweeps };
    }),
  );
  clearInterval(ticker);
  await sleep(500);
  const fan = await report();
  say('exit');

  const f = (n: number) => n.toFixed(1).padStart(8);
  console.log(
    '\n| phase       |  wall s | ELD p50 | ELD p99 | ELD max | fan-out p50 | fan-out p99 | fan-out max | deliveries | notes ok | sweeps |',
  );
  console.log(
    '| ----------- | ------: | ------: | ------: | ------: | ----------: | ----------: | ----------: | ---------: | -------: | -----: |',
  );
  for (const r of rows) {
    const l = fan.phases[r.name] ?? { n: 0, p50: 0, p99: 0, max: 0 };
    console.log(
      `| ${r.name.padEnd(11)} | ${(r.wallMs / 1000).toFixed(1).padStart(7)} | ${f(r.eld.p50)} | ${f(r.eld.p99)} | ${f(r.eld.max)} | ${f(l.p50)}    | ${f(l.p99)}    | ${f(l.max)}    | ${String(l.n).padStart(10)} | ${String(r.transcribed).padStart(8)} | ${String(r.sweeps).padStart(6)} |`,
    );
  }
  const pool = rows[1]!;
  const main = rows[2]!;
  console.log(
    `\nevent-loop delay p99, main thread ÷ pool: ${(main.eld.p99 / Math.max(pool.eld.p99, 0.01)).toFixed(2)}× (goal: pool p99 ≤ 20 ms)`,
  );
  console.log(`subscribers dropped during the run: ${fan.ended}`);
  await d.close();
  daemon = null;
}

main().then(
  () => process.exit(0),
  (err) => {
    console.error(err);
    process.exit(1);
  },
);
