/**
 * What the soak samples of the daemon every few seconds: its resident set, open file descriptors, threads and child
 * processes from /proc, its own Prometheus readouts (heap, active handles, SSE streams, loop delay, pool queue), and
 * the tmux server it drives (panes, paste buffers left behind, the server's resident set). Linux only.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import { performance } from 'node:perf_hooks';
import { busyPct, childPids, cpuMs, machineJiffies, rssMb } from '../fanout/proc.js';
import { CONTROL_SESSION } from '../../src/tmux/control-client.js';

export interface Sample {
  /** Seconds since the load started (negative before it). */
  t: number;
  rssMb: number;
  fds: number;
  threads: number;
  /** Direct children of the daemon: tmux clients, ffmpeg, whisper-cli in flight, or zombies nobody reaped. */
  children: number;
  heapUsedMb: number;
  /** Memory V8 tracks outside its heap: Buffers, above all the sockets' pending writes. */
  externalMb: number;
  activeHandles: number;
  sseSubscribers: number;
  loopP99Ms: number;
  poolQueue: number;
  tmuxPanes: number;
  /** Paste buffers still on the tmux server: every delivery removes its own, so these should stay near zero. */
  tmuxBuffers: number;
  tmuxRssMb: number;
  /** The daemon's CPU (all its threads) since the previous sample, % of one core. */
  cpuPct: number;
  /** How busy the whole machine was since the previous sample, % of all cores: other work shares them. */
  machinePct: number;
  /** Sends acknowledged whose delivered/failed event has not arrived yet. */
  backlog: number;
}

/** One gauge or counter from Prometheus text (label-less, or the first series), NaN if absent. */
export function metric(text: string, name: string, labels = ''): number {
  const esc = name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const m = new RegExp(`^${esc}${labels ? `\\{${labels}\\}` : '(?:\\{[^}]*\\})?'} (\\S+)$`, 'm').exec(text);
  return m ? Number(m[1]) : NaN;
}

/** Sum of every series of a counter whose labels match `pick` (e.g. all HTTP statuses >= 400). */
export function sumSeries(text: string, name: string, pick: (labels: string) => boolean): number {
  let total = 0;
  for (const m of text.matchAll(new RegExp(`^${name}\\{([^}]*)\\} (\\S+)$`, 'gm')))
    if (pick(m[1]!)) total += Number(m[2]);
  return total;
}

export function fdCount(pid: number): number {
  try {
    return fs.readdirSync(`/proc/${pid}/fd`).length;
  } catch {
    return NaN;
  }
}

/** Open descriptors by what they point at: socket, pipe, anon_inode:[eventfd], or the file's path. */
export function fdKinds(pid: number): Record<string, number> {
  const out: Record<string, number> = {};
  let names: string[];
  try {
    names = fs.readdirSync(`/proc/${pid}/fd`);
  } catch {
    return out;
  }
  for (const n of names) {
    let target: string;
    try {
      target = fs.readlinkSync(`/proc/${pid}/fd/${n}`);
    } catch {
      continue; // closed meanwhile
    }
    const kind = /^(socket|pipe):/.exec(target)?.[1] ?? target;
    out[kind] = (out[kind] ?? 0) + 1;
  }
  return out;
}

/** What `after` holds that `before` did not, e.g. "+2 socket, +1 anon_inode:[eventfd]"; empty when nothing grew. */
export function fdGrowth(before: Record<string, number>, after: Record<string, number>): string {
  return Object.entries(after)
    .map(([k, n]) => [k, n - (before[k] ?? 0)] as const)
    .filter(([, d]) => d > 0)
    .map(([k, d]) => `+${d} ${k}`)
    .join(', ');
}

export function threadCount(pid: number): number {
  const m = /^Threads:\s+(\d+)/m.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
  return m ? Number(m[1]) : NaN;
}

function tmux(socket: string, args: string[]): Promise<string> {
  return new Promise((resolve) =>
    execFile('tmux', ['-S', socket, ...args], { timeout: 5_000 }, (err, stdout) => resolve(err ? '' : stdout)),
  );
}

const lines = (s: string) => s.split('\n').filter(Boolean).length;

/** The tmux server's pid, agents' panes (the daemon's control session is not one) and leftover buffers. */
export async function tmuxReadout(socket: string): Promise<{ pid: number; panes: number; buffers: number }> {
  const [pid, panes, buffers] = await Promise.all([
    tmux(socket, ['display-message', '-p', '#{pid}']),
    tmux(socket, ['list-panes', '-a', '-F', '#{session_name}']),
    tmux(socket, ['list-buffers', '-F', '#{buffer_name}']),
  ]);
  const agentPanes = panes.split('\n').filter((name) => name !== '' && name !== CONTROL_SESSION).length;
  return { pid: Number(pid.trim()), panes: agentPanes, buffers: lines(buffers) };
}

/** Samples one daemon; CPU shares are over the time since the previous sample (or since the prober was made). */
export function prober(pid: number, tmuxSocket: string, metricsText: () => Promise<string>) {
  let last = { at: performance.now(), cpu: cpuMs([pid]), machine: machineJiffies() };
  /** Everything but `t` and `backlog`, which the runner knows. */
  return async (): Promise<Omit<Sample, 't' | 'backlog'>> => {
    const [text, tm] = await Promise.all([metricsText(), tmuxReadout(tmuxSocket)]);
    const now = { at: performance.now(), cpu: cpuMs([pid]), machine: machineJiffies() };
    const cpuPct =
      now.cpu !== null && last.cpu !== null ? (100 * (now.cpu - last.cpu)) / Math.max(1, now.at - last.at) : NaN;
    const machinePct = busyPct(last.machine, now.machine) ?? NaN;
    last = now;
    return {
      rssMb: rssMb([pid]) ?? NaN,
      fds: fdCount(pid),
      threads: threadCount(pid),
      children: childPids(pid).length,
      heapUsedMb: metric(text, 'leo_nodejs_heap_size_used_bytes') / 2 ** 20,
      externalMb: metric(text, 'leo_nodejs_external_memory_bytes') / 2 ** 20,
      activeHandles: metric(text, 'leo_nodejs_active_handles_total'),
      sseSubscribers: metric(text, 'leo_sse_subscribers'),
      loopP99Ms: metric(text, 'leo_main_loop_delay_seconds', 'quantile="0.99"') * 1000,
      poolQueue: metric(text, 'leo_pool_queue_depth'),
      tmuxPanes: tm.panes,
      tmuxBuffers: tm.buffers,
      tmuxRssMb: (Number.isFinite(tm.pid) && tm.pid > 0 ? rssMb([tm.pid]) : null) ?? NaN,
      cpuPct,
      machinePct,
    };
  };
}
