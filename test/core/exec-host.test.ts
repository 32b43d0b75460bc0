import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import { ExecHost } from '../../src/core/exec-host.js';

describe('ExecHost: programs started from a helper process', () => {
  const host = new ExecHost();
  after(() => host.close());

  it('runs a program with its args, stdin, cwd and env, and reports its exit code', async () => {
    assert.deepEqual(
      await host.exec('sh', ['-c', 'printf "%s|%s|%s" "$1" "$PWD" "$X"; cat', 'sh', 'a b'], {
        cwd: '/tmp',
        env: { X: 'from env', PATH: process.env.PATH },
        input: '+stdin',
      }),
      { code: 0, stdout: 'a b|/tmp|from env+stdin', stderr: '' },
    );
    const failed = await host.exec('sh', ['-c', 'echo oops >&2; exit 3']);
    assert.deepEqual(failed, { code: 3, stdout: '', stderr: 'oops\n' });
  });

  it('rejects, with the errno code, a program that cannot be started', async () => {
    await assert.rejects(host.exec('/no/such/program', []), (err: NodeJS.ErrnoException) => err.code === 'ENOENT');
  });

  it('answers concurrent calls to their own callers', async () => {
    const outs = await Promise.all(
      Array.from({ length: 20 }, (_, i) => host.exec('sh', ['-c', `sleep 0.0${i % 5}; echo ${i}`])),
    );
    assert.deepEqual(
      outs.map((o) => o.stdout.trim()),
      Array.from({ length: 20 }, (_, i) => String(i)),
    );
  });

  it('kills a program that outlives its timeout', async () => {
    const r = await host.exec('sleep', ['5'], { timeoutMs: 200 });
    assert.notEqual(r.code, 0);
  });

  it('fails the calls in flight when the host dies, and starts a new host for the next', async () => {
    const hostPid = Number((await host.exec('sh', ['-c', 'echo $PPID'])).stdout);
    assert.ok(hostPid > 0 && hostPid !== process.pid, 'the program is a child of the host, not of this process');
    const inFlight = host.exec('sleep', ['5']);
    process.kill(hostPid, 'SIGKILL');
    await assert.rejects(inFlight, /exec host exited/);
    const again = Number((await host.exec('sh', ['-c', 'echo $PPID'])).stdout);
    assert.ok(again > 0 && again !== hostPid);
  });

  it('refuses calls once closed', async () => {
    const closed = new ExecHost();
    await closed.exec('true', []);
    closed.close();
    await assert.rejects(closed.exec('true', []), /closed/);
  });
});
