/**
 * Reading a process's CPU time and memory from /proc (Linux only: elsewhere every reader returns null, and the
 * benchmark prints n/a), and the small helpers for child processes that every target shares.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';

const CLK_TCK = 100;
/** Above the 5 000 subscribers plus listeners, pipes and the daemon's own files. */
export const FD_LIMIT = 65_535;

function statFields(pid: number): number[] | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name is parenthesised and may hold spaces, so fields are counted from its closing parenthesis.
    return stat
      .slice(stat.lastIndexOf(')') + 2)
      .split(' ')
      .map(Number);
  } catch {
    return null;
  }
}

/** utime+stime in ms of all the given processes (their threads included); null if none could be read. */
export function cpuMs(pids: number[]): number | null {
  let total = 0;
  let any = false;
  for (const pid of pids) {
    const f = statFields(pid);
    if (!f) continue;
    any = true;
    total += ((f[11]! + f[12]!) * 1000) / CLK_TCK;
  }
  return any ? total : null;
}

/** Resident set in MB, summed over the given processes; null if none could be read. */
export function rssMb(pids: number[]): number | null {
  let total = 0;
  let any = false;
  for (const pid of pids) {
    try {
      const m = /^VmRSS:\s+(\d+) kB/m.exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'));
      if (!m) continue;
      total += Number(m[1]) / 1024;
      any = true;
    } catch {
      // exited meanwhile
    }
  }
  return any ? total : null;
}

/**
 * Jiffies the whole machine spent busy and in all, summed over every core (/proc/stat), so a window's busy share
 * shows how much of the machine the benchmark (and anything else running) took.
 */
export function machineJiffies(): { busy: number; total: number } | null {
  try {
    const f = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).slice(1).map(Number);
    const total = f.slice(0, 8).reduce((a, b) => a + b, 0);
    return { busy: total - f[3]! - f[4]!, total };
  } catch {
    return null;
  }
}

/** Busy share of the machine (100 % = every core) between two machineJiffies() readings. */
export function busyPct(a: ReturnType<typeof machineJiffies>, b: ReturnType<typeof machineJiffies>): number | null {
  return a && b && b.total > a.total ? (100 * (b.busy - a.busy)) / (b.total - a.total) : null;
}

/** Direct children of a process (nginx's workers under its master). */
export function childPids(parent: number): number[] {
  let entries: string[];
  try {
    entries = fs.readdirSync('/proc').filter((e) => /^\d+$/.test(e));
  } catch {
    return [];
  }
  return entries.map(Number).filter((pid) => statFields(pid)?.[1] === parent);
}

/**
 * Spawns a program through `sh -c 'ulimit -n …; exec …'`, so the process itself (same pid, thanks to exec) can hold
 * thousands of sockets: the default soft limit (1 024 on many machines) is below the largest subscriber count.
 */
export function spawnWithFdLimit(
  file: string,
  args: string[],
  opts: { env?: NodeJS.ProcessEnv; cwd?: string } = {},
): ChildProcess {
  const script = `ulimit -n ${FD_LIMIT} 2>/dev/null || ulimit -n "$(ulimit -Hn)"; exec "$0" "$@"`;
  return spawn('sh', ['-c', script, file, ...args], { ...opts, stdio: ['pipe', 'pipe', 'pipe'] });
}

/** A loopback port that was free a moment ago, for servers whose config wants a fixed one. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = net.createServer();
    srv.once('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address() as net.AddressInfo;
      srv.close(() => resolve(port));
    });
  });
}

/** Resolves with the exit code, or null if the process outlived `ms` (the caller escalates). */
export function exited(child: ChildProcess, ms: number): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(null), ms);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve(code);
    });
  });
}

/** Keeps the last `max` characters a child wrote, for the error message when it dies. */
export function tail(child: ChildProcess, max = 4000): () => string {
  let out = '';
  const keep = (c: Buffer) => {
    out = (out + c.toString()).slice(-max);
  };
  child.stderr?.on('data', keep);
  return () => out;
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
