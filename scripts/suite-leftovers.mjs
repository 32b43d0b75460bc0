// What a test run left behind: processes and folders of this run only, found by the run's own temp root (every
// process a test starts inherits HOME and TMPDIR under it, and every temp folder a test makes lands in it). Other
// runs on the same machine have other roots, so nothing of theirs is ever listed or ended.
import fs from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

const ENV_KEYS = ['HOME', 'TMPDIR', 'LEO_HOME', 'LEO_USER_HOME'];

const under = (p, root) => p === root || p.startsWith(root + '/');

function read(file) {
  try {
    return fs.readFileSync(file);
  } catch {
    return null; // gone meanwhile, or not ours to read
  }
}

/** Why process `pid` belongs to the run rooted at `root`, or null. */
function belongs(pid, root) {
  try {
    if (under(fs.readlinkSync(`/proc/${pid}/cwd`), root)) return true;
  } catch {
    return false; // exited, or another user's
  }
  const cmdline = read(`/proc/${pid}/cmdline`);
  if (cmdline && cmdline.toString().includes(root + '/')) return true;
  const environ = read(`/proc/${pid}/environ`);
  if (!environ) return false;
  return environ
    .toString()
    .split('\0')
    .some((kv) => {
      const eq = kv.indexOf('=');
      return ENV_KEYS.includes(kv.slice(0, eq)) && under(kv.slice(eq + 1), root);
    });
}

function describe(pid) {
  const cmd = (read(`/proc/${pid}/cmdline`) ?? Buffer.alloc(0)).toString().split('\0').filter(Boolean).join(' ');
  const text = cmd.length > 160 ? cmd.slice(0, 157) + '...' : cmd;
  return `process ${pid}: ${text}`;
}

/** The processes of the run rooted at `root` still alive (never `exclude`, this process by default). */
export function leftoverProcesses(root, exclude = [process.pid]) {
  const found = [];
  for (const entry of fs.readdirSync('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid) || exclude.includes(pid)) continue;
    if (belongs(pid, root)) found.push({ pid, what: describe(pid) });
  }
  return found;
}

/** Folders and files the run's tests left in its temp folder. */
export function leftoverFolders(tmp) {
  let names;
  try {
    names = fs.readdirSync(tmp);
  } catch {
    return [];
  }
  return names.sort().map((n) => path.join(tmp, n));
}

const signal = (pid, sig) => {
  try {
    process.kill(pid, sig);
  } catch {
    /* exited meanwhile */
  }
};

/** Ends `procs`: TERM, then KILL whatever of them is still there after `graceMs`. */
export async function endProcesses(procs, graceMs = 2_000) {
  for (const p of procs) signal(p.pid, 'SIGTERM');
  const deadline = Date.now() + graceMs;
  let left = procs;
  while (left.length > 0 && Date.now() < deadline) {
    await sleep(100);
    left = left.filter((p) => fs.existsSync(`/proc/${p.pid}`) && !zombie(p.pid));
  }
  for (const p of left) signal(p.pid, 'SIGKILL');
}

function zombie(pid) {
  const stat = read(`/proc/${pid}/stat`);
  return stat !== null && / Z /.test(stat.toString().slice(stat.toString().lastIndexOf(')')));
}

/**
 * Lists what the run rooted at `root` (temp folder `tmp`) left, ends and removes it, and returns the list: empty
 * when the run cleaned up after itself.
 */
export async function sweepLeftovers(root, tmp) {
  const procs = leftoverProcesses(root).filter((p) => !zombie(p.pid));
  await endProcesses(procs);
  const folders = leftoverFolders(tmp);
  for (const f of folders) fs.rmSync(f, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
  return [...procs.map((p) => p.what), ...folders.map((f) => `folder ${f}`)];
}
