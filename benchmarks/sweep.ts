/**
 * How the activity sweep's cost grows with the fleet: starts N real tmux sessions on a private server (half of them
 * printing every second, so captures happen), runs the sweep worker's code in-process several times per N, and
 * prints wall time, captures and CPU (the tmux clients the sweep forks, and the tmux server, from /proc).
 *
 *   npx tsc -p tsconfig.json && node dist/benchmarks/sweep.js [--max 200] [--sweeps 6]
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { realExec, type Exec } from '../src/core/exec.js';
import { Tmux } from '../src/tmux/tmux.js';
import { runSweep } from '../workers/sweep.js';
import { int, options } from './lib/options.js';

const SIZES = [25, 50, 100, 200];
/** Hard stop, so the run stays well under two minutes whatever the machine. */
const BUDGET_MS = 100_000;
const CLK_TCK = 100;

/** utime+stime (ms) of a process, plus its reaped children's when `children` is set; null off Linux. */
function cpuMs(pid: number | 'self', children = false): number | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the parenthesised command name; utime is field 14, so index 11 here.
    const f = stat
      .slice(stat.lastIndexOf(')') + 2)
      .split(' ')
      .map(Number);
    const ticks = children ? f[13]! + f[14]! : f[11]! + f[12]!;
    return (ticks * 1000) / CLK_TCK;
  } catch {
    return null;
  }
}

function quantile(xs: number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? NaN;
}

const fmt = (v: number | null, digits = 1) => (v === null || Number.isNaN(v) ? 'n/a' : v.toFixed(digits));

const { max: maxN, sweeps } = options({ max: int(200), sweeps: int(6) });
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'leo-bench-'));
const socketPath = path.join(dir, 'tmux.sock');
let tmuxCalls = 0;
const countingExec: Exec = (file, args, opts) => {
  tmuxCalls++;
  return realExec(file, args, opts);
};
const tmux = new Tmux({ socketPath, exec: countingExec });

let cleaned = false;
function cleanup(): void {
  if (cleaned) return;
  cleaned = true;
  // Synchronous, so it also runs from the exit and signal handlers.
  try {
    execFileSync('tmux', ['-S', socketPath, 'kill-server'], { stdio: 'ignore' });
  } catch {
    // no server left
  }
  fs.rmSync(dir, { recursive: true, force: true });
}
process.on('exit', cleanup);
for (const sig of ['SIGINT', 'SIGTERM'] as const)
  process.on(sig, () => {
    cleanup();
    process.exit(130);
  });

interface Row {
  n: number;
  sweeps: number;
  captures: number;
  calls: number;
  medianMs: number;
  p90Ms: number;
  listMs: number;
  clientCpuMs: number | null;
  serverCpuMs: number | null;
}

async function measure(n: number, serverPid: number): Promise<Row> {
  // A second for every printer to have printed past its baseline.
  await sleep(1100);
  let previous = Object.fromEntries((await tmux.listSessions()).map((s) => [s.name, s.activity]));
  const wall: number[] = [];
  const list: number[] = [];
  let captures = 0;
  let calls = 0;
  let clientCpu = 0;
  let serverCpu = 0;
  for (let i = 0; i < sweeps; i++) {
    await sleep(1050);
    const c0 = cpuMs('self', true);
    const s0 = cpuMs(serverPid);
    const t0 = performance.now();
    const callsBefore = tmuxCalls;
    const r = await runSweep(tmux, { previous });
    wall.push(performance.now() - t0);
    calls += tmuxCalls - callsBefore;
    const c1 = cpuMs('self', true);
    const s1 = cpuMs(serverPid);
    if (c0 !== null && c1 !== null) clientCpu += c1 - c0;
    if (s0 !== null && s1 !== null) serverCpu += s1 - s0;
    captures += Object.keys(r.panes).length;
    previous = Object.fromEntries(r.sessions.map((s) => [s.name, s.activity]));
    const l0 = performance.now();
    await tmux.listSessions();
    list.push(performance.now() - l0);
  }
  return {
    n,
    sweeps,
    captures: captures / sweeps,
    calls: calls / sweeps,
    medianMs: quantile(wall, 0.5),
    p90Ms: quantile(wall, 0.9),
    listMs: quantile(list, 0.5),
    clientCpuMs: cpuMs('self', true) === null ? null : clientCpu / sweeps,
    serverCpuMs: cpuMs(serverPid) === null ? null : serverCpu / sweeps,
  };
}

async function main(): Promise<void> {
  const started = performance.now();
  const rows: Row[] = [];
  let have = 0;
  let serverPid = 0;
  for (const n of SIZES.filter((s) => s <= maxN)) {
    if (performance.now() - started > BUDGET_MS - (sweeps + 2) * 1100) {
      console.log(`(stopping before N=${n}: time budget)`);
      break;
    }
    for (; have < n; have++) {
      const printing = have % 2 === 0;
      await tmux.newSession({
        name: `agent-${have}`,
        cwd: dir,
        command: ['sh', '-c', printing ? 'while :; do date; sleep 1; done' : 'while :; do sleep 1; done'],
      });
    }
    if (!serverPid) serverPid = Number(execFileSync('tmux', ['-S', socketPath, 'display', '-p', '#{pid}']).toString());
    rows.push(await measure(n, serverPid));
    const r = rows.at(-1)!;
    console.log(`N=${n}: median ${fmt(r.medianMs)} ms`);
  }

  console.log(
    `\nsweep = 1 list-sessions + the advanced sessions' capture-panes chained into as few tmux calls as fit;` +
      ` ${sweeps} sweeps per N, ~1 s apart\n`,
  );
  const head = [
    'N',
    'captures/sweep',
    'tmux calls/sweep',
    'median ms',
    'p90 ms',
    'list-sessions ms',
    'ms/agent',
    'client CPU ms',
    'server CPU ms',
  ];
  const body = rows.map((r) => [
    String(r.n),
    fmt(r.captures),
    fmt(r.calls),
    fmt(r.medianMs),
    fmt(r.p90Ms),
    fmt(r.listMs),
    fmt(r.medianMs / r.n, 2),
    fmt(r.clientCpuMs),
    fmt(r.serverCpuMs),
  ]);
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]!.length)));
  const line = (cells: string[]) => `| ${cells.map((c, i) => c.padStart(widths[i]!)).join(' | ')} |`;
  console.log(line(head));
  console.log(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
  for (const b of body) console.log(line(b));
  console.log(`\ntotal ${fmt((performance.now() - started) / 1000)} s; CPU per sweep, 10 ms /proc resolution averaged`);
}

main()
  .catch((err) => {
    console.error(err);
    process.exitCode = 1;
  })
  .finally(cleanup);
