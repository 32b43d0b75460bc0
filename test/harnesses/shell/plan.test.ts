import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, it } from 'node:test';
import { planShell } from '../../../src/harnesses/launch.js';
import { LEO_KEYS, makeCtx, TOKEN } from '../fixture.js';

describe('shell harness', () => {
  it('runs the command as written under /bin/sh -c, as one argv element', () => {
    const command = `aider --model "x y" 'it''s' && echo $LEO_AGENT > out.txt`;
    assert.deepEqual(planShell(makeCtx({ command })).argv, ['/bin/sh', '-c', command]);
  });

  it('gets ctx.env and the LEO_* variables, and no files', () => {
    const ctx = makeCtx({ command: 'true' });
    const plan = planShell(ctx);
    assert.deepEqual(plan.files, []);
    assert.deepEqual(Object.keys(plan.env), [...Object.keys(ctx.env), ...LEO_KEYS].sort());
  });

  it('ignores model, resume and permissions', () => {
    const plan = planShell(
      makeCtx({ command: 'my-cli', model: 'm', resume: true, permissions: { bypass_permissions: true, allow: ['X'] } }),
    );
    assert.deepEqual(plan.argv, ['/bin/sh', '-c', 'my-cli']);
  });

  it('requires a command', () => {
    assert.throws(() => planShell(makeCtx()), /needs a command/);
    assert.throws(() => planShell(makeCtx({ command: '  ' })), /needs a command/);
  });

  it('the command sees Leo through its environment, not its argv', () => {
    const plan = planShell(makeCtx({ command: 'printf "%s|%s" "$LEO_AGENT" "$LEO_AGENT_TOKEN"' }));
    const [file, ...args] = plan.argv;
    const r = spawnSync(file as string, args, { env: plan.env, encoding: 'utf8' });
    assert.equal(r.stdout, `den|${TOKEN}`);
    assert.ok(!plan.argv.some((a) => a.includes(TOKEN)));
  });
});
