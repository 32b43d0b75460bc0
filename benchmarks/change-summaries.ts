/**
 * What following the fleet's change summaries costs (issue 33): N agents, each in its own git repository of F
 * committed files, looked at every second by the daemon's ChangeSummaries through a real worker pool, while W of them
 * write a file every second (agents in a turn). Prints the CPU it took per second of wall time (the process's threads,
 * and the git processes it reaped), the looks that found a change, and how long after a write its event came.
 *
 *   npx tsc -p tsconfig.json && node dist/benchmarks/change-summaries.js [--agents 10] [--files 1000] [--writers 2]
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { systemClock } from '../src/core/clock.js';
import { WorkerPool } from '../src/pool/worker-pool.js';
import { ChangeSummaries } from '../src/review/summary/change-summaries.js';
import { int, options } from './lib/options.js';
import { fmt, mainThreadCpuMs, quantile, runGuarded, table } from './lib/report.js';

const CLK_TCK = 100;
const o = options({ agents: int(10), files: int(1000), writers: int(2, 0), seconds: int(20) });
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'leo-bench-summary-'));

/** utime+stime of this process (every thread) and of the children it reaped, in ms. */
function cpu(): { self: number; children: number } {
  const stat = fs.readFileSync('/proc/self/stat', 'utf8');
  const f = stat
    .slice(stat.lastIndexOf(')') + 2)
    .split(' ')
    .map(Number);
  return { self: ((f[11]! + f[12]!) * 1000) / CLK_TCK, children: ((f[13]! + f[14]!) * 1000) / CLK_TCK };
}

function makeRepo(i: number): string {
  const repo = path.join(dir, `agent-${i}`);
  for (let d = 0; d < 50; d++) {
    fs.mkdirSync(path.join(repo, `dir-${d}`), { recursive: true });
    for (let f = d; f < o.files; f += 50)
      fs.writeFileSync(path.join(repo, `dir-${d}`, `file-${f}.ts`), `export const v${f} = ${f};\n`.repeat(20));
  }
  const git = (...args: string[]) =>
    execFileSync('git', ['-c', 'user.name=b', '-c', 'user.email=b@example.com', ...args], { cwd: repo });
  git('init', '-q');
  git('add', '-A');
  git('commit', '-q', '-m', 'start');
  return repo;
}

async function main(): Promise<void> {
  const agents = Array.from({ length: o.agents }, (_, i) => ({
    name: `agent-${i}`,
    workspace: makeRepo(i),
    running: true,
  }));
  const pool = new WorkerPool({ threads: 2, maxQueue: 64 });
  const writtenAt = new Map<string, number>();
  const latencies: number[] = [];
  let events = 0;
  const summaries = new ChangeSummaries({
    clock: systemClock,
    pool,
    agents: () => agents,
    publish: (agent) => {
      events++;
      const at = writtenAt.get(agent);
      if (at !== undefined) latencies.push(Date.now() - at);
      writtenAt.delete(agent);
    },
  });
  summaries.start();
  await sleep(3000);
  const c0 = cpu();
  const m0 = mainThreadCpuMs();
  const e0 = events;
  const started = Date.now();
  for (let s = 0; s < o.seconds; s++) {
    for (const a of agents.slice(0, o.writers)) {
      fs.appendFileSync(path.join(a.workspace, 'dir-0', 'file-0.ts'), `// edit ${s}\n`);
      writtenAt.set(a.name, Date.now());
    }
    await sleep(1000);
  }
  const wallS = (Date.now() - started) / 1000;
  const c1 = cpu();
  const m1 = mainThreadCpuMs();
  await summaries.stop();
  await pool.close();
  table(
    [
      'agents',
      'files',
      'writers',
      'daemon CPU %',
      'main thread %',
      'git CPU %',
      'events/s',
      'write→event p50 ms',
      'p90 ms',
    ],
    [
      [
        String(o.agents),
        String(o.files),
        String(o.writers),
        fmt((c1.self - c0.self) / wallS / 10, 1),
        m0 === null || m1 === null ? 'n/a' : fmt((m1 - m0) / wallS / 10, 1),
        fmt((c1.children - c0.children) / wallS / 10, 1),
        fmt((events - e0) / wallS, 1),
        fmt(quantile(latencies, 0.5), 0),
        fmt(quantile(latencies, 0.9), 0),
      ],
    ],
  );
}

runGuarded(
  120_000,
  main,
  async () => fs.rmSync(dir, { recursive: true, force: true }),
  () => fs.rmSync(dir, { recursive: true, force: true }),
);
