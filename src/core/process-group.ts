import { setTimeout as sleep } from 'node:timers/promises';

const POLL_MS = 50;
/** After SIGKILL, how long to wait for init to reap the group before giving up waiting. */
const REAP_WAIT_MS = 2000;

/**
 * Ends a process group started with `detached: true` (a task attempt, a `bash` tool call, a CLI engine turn): SIGTERM
 * to the whole group, SIGKILL to what is left after `graceMs`, then waits until the group is gone, so nothing a child
 * spawned outlives it.
 */
export async function endProcessGroup(pgid: number, graceMs: number): Promise<void> {
  if (!signalGroup(pgid, 'SIGTERM')) return;
  if (await groupGoneWithin(pgid, graceMs)) return;
  signalGroup(pgid, 'SIGKILL');
  await groupGoneWithin(pgid, REAP_WAIT_MS);
}

async function groupGoneWithin(pgid: number, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    await sleep(POLL_MS);
    if (!signalGroup(pgid, 0)) return true;
  }
  return false;
}

/** False once the group has no process left (ESRCH). */
function signalGroup(pgid: number, signal: NodeJS.Signals | 0): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    return false;
  }
}
