/** What every benchmark prints and reads the same way: percentiles, tables, the machine, thread CPU. */
import fs from 'node:fs';
import os from 'node:os';

/** Linux /proc CPU times are in ticks of 1/100 s. */
const CLK_TCK = 100;

export function quantile(xs: number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? NaN;
}

export const maxOf = (xs: number[]) => (xs.length ? xs.reduce((a, b) => (b > a ? b : a)) : NaN);
export const fmt = (v: number, digits = 2) => (Number.isNaN(v) ? 'n/a' : v.toFixed(digits));

/** A Markdown table, the first column left-aligned and the rest right-aligned. */
export function table(head: string[], body: string[][]): void {
  const widths = head.map((h, i) => Math.max(h.length, ...body.map((b) => b[i]!.length)));
  const line = (cells: string[]) =>
    `| ${cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join(' | ')} |`;
  console.log(line(head));
  console.log(`|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`);
  for (const b of body) console.log(line(b));
}

export function machineLine(): string {
  const read = (f: string) => {
    try {
      return fs.readFileSync(f, 'utf8');
    } catch {
      return '';
    }
  };
  const cpu = /^model name\s*:\s*(.+)$/m.exec(read('/proc/cpuinfo'))?.[1] ?? os.cpus()[0]?.model ?? 'unknown CPU';
  const memKb = Number(/^MemTotal:\s+(\d+) kB/m.exec(read('/proc/meminfo'))?.[1] ?? os.totalmem() / 1024);
  return (
    `machine: ${cpu.trim()}, ${os.availableParallelism()} cores, ${(memKb / 1024 / 1024).toFixed(1)} GiB RAM; ` +
    `Node ${process.version}; load ${os
      .loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}`
  );
}

/**
 * CPU time (ms) of this process's main thread from /proc (10 ms ticks); null off Linux. Unlike wall time, it does not
 * grow when other work on the machine takes the core.
 */
export function mainThreadCpuMs(): number | null {
  try {
    const stat = fs.readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8');
    // Fields after the parenthesised command name; utime is field 14, so index 11 here.
    const f = stat
      .slice(stat.lastIndexOf(')') + 2)
      .split(' ')
      .map(Number);
    return ((f[11]! + f[12]!) * 1000) / CLK_TCK;
  } catch {
    return null;
  }
}

/** Main-thread CPU per operation in µs, over a stretch that began at `cpu0` and did `ops` operations. */
export const cpuPerOp = (cpu0: number | null, ops: number): number | null => {
  const cpu1 = mainThreadCpuMs();
  return cpu0 === null || cpu1 === null || ops === 0 ? null : ((cpu1 - cpu0) * 1000) / ops;
};

/**
 * Runs an in-process benchmark with the lifecycle they all share: `cleanupSync` on exit whatever happens, a bounded
 * try at the orderly `cleanup` on SIGINT/SIGTERM (the exit handler removes whatever is left), a hard stop after
 * `budgetMs`, and `cleanup` after `body` however it ends (exit code 1 if it threw).
 */
export function runGuarded(
  budgetMs: number,
  body: () => Promise<void>,
  cleanup: () => Promise<void>,
  cleanupSync: () => void,
): void {
  process.on('exit', cleanupSync);
  for (const sig of ['SIGINT', 'SIGTERM'] as const)
    process.on(sig, () => {
      const forced = setTimeout(() => process.exit(130), 5_000);
      void cleanup().finally(() => {
        clearTimeout(forced);
        process.exit(130);
      });
    });
  setTimeout(() => {
    console.error(`(aborting: over the ${budgetMs / 1000} s budget)`);
    process.exit(1);
  }, budgetMs).unref();
  body()
    .catch((err) => {
      console.error(err);
      process.exitCode = 1;
    })
    .finally(cleanup);
}
