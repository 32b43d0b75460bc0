// runOneshot: one `runtime: oneshot` firing as real processes. Each attempt runs the headless plan's argv (no shell) in
// its own process group, so a timeout or an interrupt ends everything it started, not just the first process. Output
// goes straight to the run's log file (never through this process), and the tail of it explains a failure. Real time
// throughout: this runs in the daemon and in `leo run`'s own process, and the waits are on real processes.
import { writePlannedFiles } from '../harnesses/plan-files.js';
import { spawn, type ChildProcess } from 'node:child_process';
import fs, { type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { PlannedFile } from '../harnesses/types.js';
import { endProcessGroup } from '../core/process-group.js';
import { rfc3339 } from '../core/time.js';

export interface OneshotOptions {
  /** argv[0] is the program, looked up on the PATH of the merged env. */
  argv: string[];
  /** Added over this process's own env, as tmux adds a launch plan's env over its server's. */
  env: Record<string, string>;
  cwd: string;
  /** Create `cwd` when it is missing (the task's default workspace); otherwise a missing cwd fails the run. */
  makeCwd?: boolean;
  /** Every attempt's output is appended here, between a header and a footer line. */
  logPath: string;
  attempts: number;
  /** Per attempt. */
  timeoutMs: number;
  /** Aborting (daemon shutdown, Ctrl-C of `leo run`) ends the attempt in flight and stops retrying. */
  signal?: AbortSignal;
  /** Called as attempt n (from 1) starts. */
  onAttempt?(n: number): void;
  /** The plan's files, written before the first attempt. */
  files?: PlannedFile[];
  /** The wait after failed attempt n before the next one. */
  backoffMs?: (attempt: number) => number;
  /**
   * What the program itself said the failure was, found in the end of its output (its CLI's own error line), or null.
   * It leads the error, so the few hundred characters a failure card shows name the cause rather than a banner.
   */
  explain?: (tail: string) => string | null;
}

export interface OneshotResult {
  ok: boolean;
  /** Attempts started. */
  attempts: number;
  /** Why the last attempt failed; null on success. Never the output: the run's error reaches read-only dashboards. */
  error: string | null;
  /**
   * The last lines of a failed run's last attempt, for its owner only (the failure card, the owner-only run log): a
   * program may print a secret. Absent when it printed nothing or did not fail.
   */
  output?: string;
  interrupted: boolean;
  /** The last attempt's exit code; null when a signal ended it or it never started. */
  exitCode: number | null;
}

/** After SIGTERM, how long the group gets to go before SIGKILL. */
export const KILL_GRACE_MS = 5000;
const MAX_BACKOFF_MS = 30_000;
const TAIL_LINES = 20;
/** Enough for TAIL_LINES ordinary lines; one huge line is cut rather than read whole. */
const TAIL_BYTES = 4096;
/** setTimeout's ceiling; a longer delay would fire at once. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** 1 s, 2 s, 3 s, … up to 30 s. */
export function defaultBackoffMs(attempt: number): number {
  return Math.min(attempt * 1000, MAX_BACKOFF_MS);
}

interface AttemptEnd {
  /** Null when the attempt succeeded. */
  reason: string | null;
  interrupted: boolean;
  exitCode: number | null;
  /** The last lines of the attempt's output. */
  tail: string;
}

export async function runOneshot(opts: OneshotOptions): Promise<OneshotResult> {
  const interrupted = (attempts: number, exitCode: number | null): OneshotResult => ({
    ok: false,
    attempts,
    error: 'interrupted',
    interrupted: true,
    exitCode,
  });
  if (opts.signal?.aborted) return interrupted(0, null);
  const notStarted = async (err: unknown): Promise<OneshotResult> => {
    const error = `could not start: ${(err as Error).message}`;
    // Said in the log too, when it can be written, so the log a failure card names exists and explains.
    await logNotStarted(opts.logPath, error).catch(() => undefined);
    return { ok: false, attempts: 0, error, interrupted: false, exitCode: null };
  };
  let log: FileHandle;
  try {
    await fs.mkdir(path.dirname(opts.logPath), { recursive: true, mode: 0o700 });
    // Private: a run prints whatever its agent saw.
    log = await fs.open(opts.logPath, 'a+', 0o600);
  } catch (err) {
    return notStarted(err);
  }
  try {
    await writePlannedFiles(opts.files ?? []);
    if (opts.makeCwd) await fs.mkdir(opts.cwd, { recursive: true });
  } catch (err) {
    await log.close();
    return notStarted(err);
  }
  const total = Math.max(1, opts.attempts);
  try {
    for (let n = 1; ; n++) {
      opts.onAttempt?.(n);
      const a = await runAttempt(opts, log, `attempt ${n}/${total}`);
      if (a.interrupted) return interrupted(n, a.exitCode);
      if (a.reason === null) return { ok: true, attempts: n, error: null, interrupted: false, exitCode: a.exitCode };
      if (n === total) {
        const why = a.tail ? (opts.explain?.(a.tail) ?? null) : null;
        const head = why ? `${a.reason}: ${why}` : a.reason;
        return {
          ok: false,
          attempts: n,
          error: head,
          ...(a.tail ? { output: a.tail } : {}),
          interrupted: false,
          exitCode: a.exitCode,
        };
      }
      const backoff = (opts.backoffMs ?? defaultBackoffMs)(n);
      if (!(await pause(backoff, opts.signal))) return interrupted(n, a.exitCode);
    }
  } finally {
    await log.close();
  }
}

/**
 * The log of a run refused before any process could start (its task names an undefined environment, say): the reason
 * in the run's own log, so a failure card's `Log:` names a file that exists and says why.
 */
export async function logNotStarted(logPath: string, reason: string): Promise<void> {
  await fs.mkdir(path.dirname(logPath), { recursive: true, mode: 0o700 });
  await fs.appendFile(logPath, `--- not started at ${rfc3339(Date.now())}: ${reason} ---\n`, { mode: 0o600 });
}

/** False when the wait was aborted. */
async function pause(ms: number, signal?: AbortSignal): Promise<boolean> {
  try {
    await sleep(ms, undefined, { signal });
    return true;
  } catch {
    return false;
  }
}

async function runAttempt(opts: OneshotOptions, log: FileHandle, label: string): Promise<AttemptEnd> {
  await log.write(`--- ${label} at ${rfc3339(Date.now())} ---\n`);
  const start = (await log.stat()).size;
  const end = await runProcess(opts, log.fd);
  const output = await readOutputEnd(log, start);
  const reason = failureReason(end, opts.timeoutMs);
  const outcome = end.aborted ? 'interrupted' : reason === null ? 'ok' : `failed: ${reason}`;
  const newline = output.text === '' || output.text.endsWith('\n') ? '' : '\n';
  await log.write(`${newline}--- ${label} ${outcome} at ${rfc3339(Date.now())} ---\n`);
  return { reason, interrupted: end.aborted, exitCode: end.exitCode, tail: lastLines(output) };
}

interface ProcessEnd {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  /** Set when the process never ran. */
  startError: string | null;
  timedOut: boolean;
  aborted: boolean;
}

function failureReason(end: ProcessEnd, timeoutMs: number): string | null {
  if (end.startError !== null) return `could not start: ${end.startError}`;
  if (end.timedOut) return `timeout after ${Number((timeoutMs / 1000).toFixed(1))}s`;
  if (end.exitCode === 0) return null;
  if (end.exitCode !== null) return `exit ${end.exitCode}`;
  return `killed by ${end.signal}`;
}

async function runProcess(opts: OneshotOptions, outFd: number): Promise<ProcessEnd> {
  const [program, ...args] = opts.argv;
  const notStarted = (startError: string): ProcessEnd => ({
    exitCode: null,
    signal: null,
    startError,
    timedOut: false,
    aborted: false,
  });
  if (program === undefined) return notStarted('empty command line');
  let child: ChildProcess;
  try {
    child = spawn(program, args, {
      cwd: opts.cwd,
      // PWD as a shell would set it: inherited, it names this process's directory, and some CLIs (opencode run) take
      // their project from PWD before cwd.
      env: { ...process.env, ...opts.env, PWD: opts.cwd },
      stdio: ['ignore', outFd, outFd],
      // Its own process group (and session), so the whole tree can be signalled at once.
      detached: true,
    });
  } catch (err) {
    return notStarted((err as Error).message);
  }
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null } | { error: Error }>((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal }));
    child.once('error', (error) => resolve({ error }));
  });
  let timedOut = false;
  let aborted = false;
  let ending: Promise<void> | undefined;
  const endTree = () =>
    (ending ??= child.pid === undefined ? Promise.resolve() : endProcessGroup(child.pid, KILL_GRACE_MS));
  const timer = setTimeout(
    () => {
      timedOut = true;
      void endTree();
    },
    Math.min(opts.timeoutMs, MAX_TIMER_MS),
  );
  const onAbort = () => {
    aborted = true;
    void endTree();
  };
  opts.signal?.addEventListener('abort', onAbort, { once: true });
  if (opts.signal?.aborted) onAbort();
  try {
    const r = await exited;
    if ('error' in r) return notStarted(await startErrorMessage(r.error, opts.cwd));
    const end: ProcessEnd = { exitCode: r.code, signal: r.signal, startError: null, timedOut, aborted };
    // Also after a normal exit: whatever the attempt left running in its group goes with it.
    await endTree();
    return end;
  } finally {
    clearTimeout(timer);
    opts.signal?.removeEventListener('abort', onAbort);
  }
}

/** spawn reports a missing cwd as the program's ENOENT; name the real culprit. */
async function startErrorMessage(err: Error, cwd: string): Promise<string> {
  if ((err as NodeJS.ErrnoException).code !== 'ENOENT') return err.message;
  const isDir = await fs.stat(cwd).then(
    (s) => s.isDirectory(),
    () => false,
  );
  return isDir ? err.message : `no such directory ${cwd}`;
}

/** The end of the attempt's output: at most TAIL_BYTES, `cut` when more came before it. */
async function readOutputEnd(log: FileHandle, start: number): Promise<{ text: string; cut: boolean }> {
  const end = (await log.stat()).size;
  const from = Math.max(start, end - TAIL_BYTES);
  const buf = Buffer.alloc(end - from);
  const { bytesRead } = await log.read(buf, 0, buf.length, from);
  return { text: buf.subarray(0, bytesRead).toString('utf8'), cut: from > start };
}

function lastLines(output: { text: string; cut: boolean }): string {
  const lines = output.text.trimEnd().split('\n');
  // A cut first line is a fragment (possibly of a multi-byte character); drop it unless it is all there is.
  if (output.cut && lines.length > 1) lines.shift();
  return lines.slice(-TAIL_LINES).join('\n');
}
