import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, beforeEach, describe, it } from 'node:test';
import { defaultBackoffMs, KILL_GRACE_MS, runOneshot, type OneshotOptions } from '../../src/tasks/oneshot-runner.js';

let dir: string;
beforeEach(() => {
  dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'leo-oneshot-')));
});
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

function opts(script: string, over: Partial<OneshotOptions> = {}): OneshotOptions {
  return {
    argv: ['sh', '-c', script],
    env: {},
    cwd: dir,
    logPath: path.join(dir, 'logs', 'run.log'),
    attempts: 1,
    timeoutMs: 10_000,
    backoffMs: () => 0,
    ...over,
  };
}

const readLog = (o: OneshotOptions) => fs.readFileSync(o.logPath, 'utf8');

/** Gone, or a zombie nobody has reaped yet: either way it runs no more. */
function isGone(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return true;
  }
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  return stat.slice(stat.lastIndexOf(')') + 2).startsWith('Z');
}

async function goneWithin(pid: number, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (!isGone(pid)) {
    if (Date.now() > deadline) return false;
    await sleep(20);
  }
  return true;
}

function pidsIn(file: string): number[] {
  return fs.readFileSync(file, 'utf8').trim().split(/\s+/).map(Number);
}

describe('runOneshot', () => {
  it('succeeds on the first attempt', async () => {
    const o = opts('echo hello');
    const seen: number[] = [];
    const r = await runOneshot({ ...o, onAttempt: (n) => seen.push(n) });
    assert.deepEqual(r, { ok: true, attempts: 1, error: null, interrupted: false, exitCode: 0 });
    assert.deepEqual(seen, [1]);
    assert.match(readLog(o), /^--- attempt 1\/1 at \S+ ---\nhello\n--- attempt 1\/1 ok at \S+ ---\n$/);
  });

  it('fails twice, then succeeds on the third attempt; the log keeps every attempt', async () => {
    const counter = path.join(dir, 'counter');
    const o = opts(
      `n=$(cat '${counter}' 2>/dev/null || echo 0); n=$((n+1)); echo $n > '${counter}'; echo "try $n"; ` +
        `echo "err $n" >&2; [ $n -ge 3 ] || exit 7`,
      { attempts: 3 },
    );
    const seen: number[] = [];
    const r = await runOneshot({ ...o, onAttempt: (n) => seen.push(n) });
    assert.deepEqual(r, { ok: true, attempts: 3, error: null, interrupted: false, exitCode: 0 });
    assert.deepEqual(seen, [1, 2, 3]);
    const log = readLog(o);
    const rfc3339 = '\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}[+-]\\d{2}:\\d{2}';
    for (const n of [1, 2, 3]) {
      assert.match(log, new RegExp(`--- attempt ${n}/3 at ${rfc3339} ---\\ntry ${n}\\nerr ${n}\\n`));
    }
    assert.match(log, /--- attempt 1\/3 failed: exit 7 at /);
    assert.match(log, /--- attempt 2\/3 failed: exit 7 at /);
    assert.match(log, /--- attempt 3\/3 ok at /);
  });

  it('every attempt fails: the last exit code, the reason and the output tail', async () => {
    const o = opts('i=1; while [ $i -le 30 ]; do echo "line $i"; i=$((i+1)); done; exit 3', { attempts: 2 });
    const r = await runOneshot(o);
    assert.equal(r.ok, false);
    assert.equal(r.attempts, 2);
    assert.equal(r.exitCode, 3);
    assert.equal(r.interrupted, false);
    assert.equal(r.error, 'exit 3');
    assert.deepEqual(
      r.output?.split('\n'),
      Array.from({ length: 20 }, (_, i) => `line ${i + 11}`),
    );
    assert.equal(readLog(o).match(/^line 30$/gm)?.length, 2);
  });

  it('a failure with no output is just the reason; a signal is named', async () => {
    const quiet = await runOneshot(opts('exit 4'));
    assert.equal(quiet.error, 'exit 4');
    assert.equal(quiet.output, undefined);
    const r = await runOneshot(opts('kill -USR1 $$'));
    assert.equal(r.error, 'killed by SIGUSR1');
    assert.equal(r.exitCode, null);
  });

  it('a long last line is cut to the end of the output', async () => {
    const r = await runOneshot(opts(`head -c 20000 /dev/zero | tr '\\0' x; echo; echo done; exit 1`));
    assert.equal(r.error, 'exit 1');
    assert.equal(r.output?.split('\n').at(-1), 'done');
    assert.ok((r.output as string).length < 5000);
  });

  it('what the program said the failure was joins the error; the tail stays apart from it', async () => {
    const explain = (tail: string) => /cause: (.*)/.exec(tail)?.[1] ?? null;
    const r = await runOneshot(opts(`echo banner; echo 'cause: no such model'; exit 2`, { explain }));
    assert.equal(r.error, 'exit 2: no such model');
    assert.equal(r.output, 'banner\ncause: no such model');
    const plain = await runOneshot(opts(`echo banner; exit 2`, { explain }));
    assert.equal(plain.error, 'exit 2');
    assert.equal(plain.output, 'banner');
  });

  it('timeout ends the process group, child and grandchild, within the budget', async () => {
    const pids = path.join(dir, 'pids');
    const o = opts(
      `echo $$ > '${pids}'; sh -c 'sleep 30 & echo $! >> "${pids}"; wait' & echo $! >> '${pids}'; sleep 30`,
      { timeoutMs: 500, attempts: 1 },
    );
    const started = Date.now();
    const r = await runOneshot(o);
    const took = Date.now() - started;
    assert.equal(r.ok, false);
    assert.equal(r.error, 'timeout after 0.5s');
    // SIGTERM is enough here: well before the SIGKILL deadline (reaping the killed orphans can take a moment).
    assert.ok(took < 500 + KILL_GRACE_MS, `took ${took} ms`);
    const all = pidsIn(pids);
    assert.equal(all.length, 3);
    for (const pid of all) assert.ok(isGone(pid), `pid ${pid} still runs`);
    assert.match(readLog(o), /--- attempt 1\/1 failed: timeout after 0.5s at /);
  });

  it('a group member that ignores SIGTERM is killed after the grace period', async () => {
    const pids = path.join(dir, 'pids');
    const o = opts(`sh -c 'trap "" TERM; echo $$ > "${pids}"; sleep 30' & sleep 30`, { timeoutMs: 300 });
    const started = Date.now();
    const r = await runOneshot(o);
    const took = Date.now() - started;
    assert.equal(r.error, 'timeout after 0.3s');
    assert.ok(took >= 300 + KILL_GRACE_MS - 100 && took < 300 + KILL_GRACE_MS + 2000, `took ${took} ms`);
    // SIGKILL is sent as the run returns; the kernel finishes the job a moment later.
    for (const pid of pidsIn(pids)) assert.ok(await goneWithin(pid, 1000), `pid ${pid} still runs`);
  });

  it('what a successful attempt leaves running is ended with it', async () => {
    const pids = path.join(dir, 'pids');
    const r = await runOneshot(opts(`sleep 30 & echo $! > '${pids}'; exit 0`));
    assert.equal(r.ok, true);
    for (const pid of pidsIn(pids)) assert.ok(isGone(pid), `pid ${pid} still runs`);
  });

  it('abort ends the attempt in flight and stops retrying', async () => {
    const abort = new AbortController();
    const pids = path.join(dir, 'pids');
    const seen: number[] = [];
    const o = opts(`echo $$ > '${pids}'; sleep 30`, {
      attempts: 3,
      signal: abort.signal,
      onAttempt: (n) => {
        seen.push(n);
        setTimeout(() => abort.abort(), 300);
      },
    });
    const started = Date.now();
    const r = await runOneshot(o);
    assert.ok(Date.now() - started < 300 + KILL_GRACE_MS);
    assert.deepEqual(r, { ok: false, attempts: 1, error: 'interrupted', interrupted: true, exitCode: null });
    assert.deepEqual(seen, [1]);
    for (const pid of pidsIn(pids)) assert.ok(isGone(pid));
    assert.match(readLog(o), /--- attempt 1\/3 interrupted at /);
  });

  it('abort during the backoff stops before the next attempt', async () => {
    const abort = new AbortController();
    const seen: number[] = [];
    const o = opts('exit 2', { attempts: 3, signal: abort.signal, backoffMs: () => 30_000 });
    const run = runOneshot({ ...o, onAttempt: (n) => seen.push(n) });
    await sleep(500);
    abort.abort();
    const r = await run;
    assert.deepEqual(r, { ok: false, attempts: 1, error: 'interrupted', interrupted: true, exitCode: 2 });
    assert.deepEqual(seen, [1]);
  });

  it('an already aborted signal starts nothing', async () => {
    const abort = new AbortController();
    abort.abort();
    const o = opts('echo never', { signal: abort.signal });
    const r = await runOneshot(o);
    assert.deepEqual(r, { ok: false, attempts: 0, error: 'interrupted', interrupted: true, exitCode: null });
    assert.ok(!fs.existsSync(o.logPath));
  });

  it('a missing program could not start, on every attempt', async () => {
    const o = opts('', { argv: ['/nonexistent/leo-no-such-program', '--x'], attempts: 2 });
    const r = await runOneshot(o);
    assert.equal(r.ok, false);
    assert.equal(r.attempts, 2);
    assert.equal(r.exitCode, null);
    assert.match(r.error as string, /^could not start: .*ENOENT/);
    assert.match(readLog(o), /--- attempt 2\/2 failed: could not start: /);
  });

  it('a missing workspace is named as such', async () => {
    const cwd = path.join(dir, 'no-such-workspace');
    const r = await runOneshot(opts('true', { cwd }));
    assert.equal(r.error, `could not start: no such directory ${cwd}`);
  });

  it('makeCwd creates a missing workspace (a task’s default one) before the first attempt', async () => {
    const cwd = path.join(dir, 'agents', 'nightly');
    const o = opts('pwd', { cwd, makeCwd: true });
    assert.equal((await runOneshot(o)).ok, true);
    assert.match(readLog(o), new RegExp(`^${cwd}$`, 'm'));
  });

  it('a plan file that cannot be written fails before any attempt, and the log says why', async () => {
    fs.writeFileSync(path.join(dir, 'blocker'), 'a file, not a directory');
    const o = opts('echo never', {
      files: [{ path: path.join(dir, 'blocker', 'settings.json'), content: '{}', mode: 0o600 }],
    });
    const r = await runOneshot(o);
    assert.deepEqual([r.ok, r.attempts], [false, 0]);
    assert.match(r.error as string, /^could not start: /);
    assert.match(readLog(o), /^--- not started at .*: could not start: .*---$/m);
    assert.doesNotMatch(readLog(o), /never/);
  });

  it('the env reaches the process, over this process’s own env', async () => {
    const o = opts('echo "$LEO_TASK $LEO_RUN_ID $HOME"', { env: { LEO_TASK: 'daily-news', LEO_RUN_ID: '01JRUN' } });
    assert.equal((await runOneshot(o)).ok, true);
    assert.match(readLog(o), new RegExp(`^daily-news 01JRUN ${process.env.HOME}$`, 'm'));
  });

  it('runs in cwd', async () => {
    const cwd = path.join(dir, 'work space');
    fs.mkdirSync(cwd);
    const o = opts('pwd', { cwd });
    assert.equal((await runOneshot(o)).ok, true);
    assert.match(readLog(o), new RegExp(`^${cwd}$`, 'm'));
  });

  it('PWD names cwd, not this process’s directory (opencode run reads PWD first)', async () => {
    // Not sh: it would fix a wrong PWD itself.
    const o = opts('', { argv: [process.execPath, '-e', 'console.log(`PWD=${process.env.PWD}`)'], env: { PWD: '/x' } });
    assert.equal((await runOneshot(o)).ok, true);
    assert.match(readLog(o), new RegExp(`^PWD=${dir}$`, 'm'));
  });

  it('writes the plan’s files first, private, creating their directories', async () => {
    const file = path.join(dir, 'run', 'a', 'settings.json');
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, 'stale', { mode: 0o644 });
    const o = opts(`cat '${file}'`, { files: [{ path: file, content: '{"ok":true}\n', mode: 0o600 }] });
    assert.equal((await runOneshot(o)).ok, true);
    assert.match(readLog(o), /^\{"ok":true\}$/m);
    assert.equal(fs.statSync(file).mode & 0o777, 0o600);
    assert.equal(fs.statSync(o.logPath).mode & 0o777, 0o600);
  });

  it('a log that cannot be opened fails the run before any attempt', async () => {
    fs.writeFileSync(path.join(dir, 'logs'), 'a file, not a directory');
    const r = await runOneshot(opts('echo never'));
    assert.equal(r.ok, false);
    assert.equal(r.attempts, 0);
    assert.match(r.error as string, /^could not start: /);
  });

  it('the default backoff grows by a second per attempt, up to 30 s', () => {
    assert.deepEqual(
      [1, 2, 3, 29, 30, 31, 100].map(defaultBackoffMs),
      [1000, 2000, 3000, 29_000, 30_000, 30_000, 30_000],
    );
  });
});
