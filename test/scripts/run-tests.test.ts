import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..', '..');
const runner = path.join(root, 'scripts', 'run-tests.mjs');
const tempHome = path.join(root, 'dist', 'test', 'helpers', 'temp-home.js');

/** Runs the real test runner on planted test files (file name → source). */
function runOn(files: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'leo-runner-files-'));
  fs.writeFileSync(path.join(dir, 'package.json'), '{"type":"module"}');
  for (const [name, text] of Object.entries(files)) fs.writeFileSync(path.join(dir, name), text);
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [runner], {
      // Without the outer runner's NODE_TEST_CONTEXT, or the inner runner would report to it instead of exiting.
      env: { ...process.env, NODE_TEST_CONTEXT: undefined, LEO_TEST_FILES_DIR: dir },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
    child.on('close', (code) => {
      fs.rmSync(dir, { recursive: true, force: true });
      resolve({ code, stderr });
    });
  });
}

/** runOn, with the planted test writing the pids it started to the file named by PIDS_OUT. */
async function runReporting(files: Record<string, string>) {
  const out = path.join(os.tmpdir(), `leo-runner-pids-${process.pid}`);
  process.env.PIDS_OUT = out;
  try {
    const r = await runOn(files);
    const pids = fs.readFileSync(out, 'utf8').split(' ').map(Number);
    return { r, pids };
  } finally {
    delete process.env.PIDS_OUT;
    fs.rmSync(out, { force: true });
  }
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !/ Z /.test(stat.slice(stat.lastIndexOf(')')));
  } catch {
    return false;
  }
};

describe('the test runner checks that the tests left nothing behind', () => {
  // Something of ours outside the run (another engineer's tests, say): the run must not touch it.
  const outsider = spawn('sleep', ['300'], { cwd: os.tmpdir(), stdio: 'ignore', detached: true });
  after(() => outsider.kill('SIGKILL'));

  it('ends and removes what a test left, names each, and fails the run', async () => {
    const leaky = `
      import { spawn, spawnSync } from 'node:child_process';
      import fs from 'node:fs';
      import os from 'node:os';
      import path from 'node:path';
      import { it } from 'node:test';
      it('leaks', () => {
        const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'leo-test-'));
        spawnSync('tmux', ['-S', path.join(dir, 'tmux.sock'), '-f', '/dev/null', 'new-session', '-d', '-s', '_leo-control']);
        const pid = spawnSync('tmux', ['-S', path.join(dir, 'tmux.sock'), 'display-message', '-p', '#{pid}'], { encoding: 'utf8' }).stdout.trim();
        const agent = spawn('sleep', ['300'], { cwd: dir, stdio: 'ignore', detached: true });
        agent.unref();
        fs.writeFileSync(path.join(os.tmpdir(), 'pids'), pid + ' ' + agent.pid);
        fs.writeFileSync(process.env.PIDS_OUT, pid + ' ' + agent.pid);
      });
    `;
    const { r, pids } = await runReporting({ 'leaky.test.js': leaky });
    const [tmuxPid, agentPid] = pids;

    assert.equal(r.code, 1, r.stderr);
    assert.match(r.stderr, /left \d+ thing\(s\) behind/);
    assert.match(r.stderr, new RegExp(`process ${tmuxPid}: tmux `), r.stderr);
    assert.match(r.stderr, new RegExp(`process ${agentPid}: sleep 300`), r.stderr);
    assert.match(r.stderr, /folder \S+\/tmp\/leo-test-\w+\n/);
    assert.match(r.stderr, /folder \S+\/tmp\/pids\n/);
    assert.equal(alive(tmuxPid!), false, 'the tmux server is ended');
    assert.equal(alive(agentPid!), false, 'the program is ended');
    assert.equal(alive(outsider.pid!), true, 'nothing outside the run is touched');
  });

  it("a failed test's temp home still takes its tmux server and folder with it", async () => {
    const failing = `
      import { spawnSync } from 'node:child_process';
      import fs from 'node:fs';
      import path from 'node:path';
      import { it } from 'node:test';
      import { makeTempHome } from ${JSON.stringify(tempHome)};
      it('fails before its clean-up', () => {
        const t = makeTempHome();
        fs.mkdirSync(path.join(t.home, 'state'));
        const sock = path.join(t.home, 'state', 'tmux.sock');
        // A program, not the default login shell: one still reading its profile outlives the hangup for a moment.
        spawnSync('tmux', ['-S', sock, '-f', '/dev/null', 'new-session', '-d', '-s', '_leo-control', 'sleep 300']);
        const pid = spawnSync('tmux', ['-S', sock, 'display-message', '-p', '#{pid}'], { encoding: 'utf8' }).stdout.trim();
        fs.writeFileSync(process.env.PIDS_OUT, pid);
        throw new Error('boom');
      });
    `;
    const { r, pids } = await runReporting({ 'failing.test.js': failing });
    assert.equal(r.code, 1);
    assert.ok(pids[0]! > 0, 'the planted test started its tmux server');
    assert.doesNotMatch(r.stderr, /behind/, r.stderr);
    assert.equal(alive(pids[0]!), false);
  });

  it('passes a run that cleaned up after itself', async () => {
    const tidy = `
      import fs from 'node:fs';
      import os from 'node:os';
      import path from 'node:path';
      import { it } from 'node:test';
      it('tidies', () => fs.rmSync(fs.mkdtempSync(path.join(os.tmpdir(), 'leo-test-')), { recursive: true }));
    `;
    const r = await runOn({ 'tidy.test.js': tidy });
    assert.equal(r.code, 0, r.stderr);
  });
});
