import fs from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';

const ENV_KEYS = ['LEO_HOME', 'HOME', 'TMPDIR'];
const inside = (p: string, dir: string) => p === dir || p.startsWith(dir + '/');

/** Whether process `pid` works in `dir` or was started with a home or temp folder in it (a daemon run from the repo). */
function belongsTo(pid: number, dir: string): boolean {
  try {
    if (inside(fs.readlinkSync(`/proc/${pid}/cwd`), dir)) return true;
    return fs
      .readFileSync(`/proc/${pid}/environ`, 'utf8')
      .split('\0')
      .some((kv) => {
        const eq = kv.indexOf('=');
        return ENV_KEYS.includes(kv.slice(0, eq)) && inside(kv.slice(eq + 1), dir);
      });
  } catch {
    return false; // gone already, or not ours
  }
}

/** Our processes (not this one) working in `dir` or started with a home or temp folder inside it. */
export function processesIn(dir: string): number[] {
  const pids: number[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    const pid = Number(entry);
    if (Number.isInteger(pid) && pid !== process.pid && belongsTo(pid, dir)) pids.push(pid);
  }
  return pids;
}

const signal = (pid: number, sig: NodeJS.Signals) => {
  try {
    process.kill(pid, sig);
  } catch {
    /* exited meanwhile */
  }
};

/**
 * Ends what a test's agents left working inside `dir`: a program started from a pane can outlive the tmux server's
 * hangup (opencode's background `bun install` into its config folder does) and would keep writing into a folder being
 * removed, or load the machine for the tests after it. TERM first, KILL what is still there after `graceMs`.
 */
export async function endProcessesIn(dir: string, graceMs = 2_000): Promise<void> {
  const pids = processesIn(dir);
  if (pids.length === 0) return;
  for (const pid of pids) signal(pid, 'SIGTERM');
  const deadline = Date.now() + graceMs;
  let left = pids;
  while (left.length > 0 && Date.now() < deadline) {
    await sleep(100);
    left = processesIn(dir);
  }
  for (const pid of left) signal(pid, 'SIGKILL');
}

/**
 * Removes a CLI sandbox: a CLI still running in it (an agent's pane outliving its tmux server's hangup, saving its state
 * as it goes) is killed first, since it can add files for longer than any retry waits (CI saw Claude writing its config
 * after 24 s); the removal still retries for a child that was mid-exit.
 */
export function removeSandbox(root: string): void {
  for (const pid of processesIn(root)) signal(pid, 'SIGKILL');
  fs.rmSync(root, { recursive: true, force: true, maxRetries: 15, retryDelay: 200 });
}
