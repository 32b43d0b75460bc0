// Issue 28 item 5: spawn's repo, branch and base reached git as options, and a spawn whose checkout failed left its
// clone behind, which the next spawn took as the workspace (an existing folder is used as is).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { SpawnBody } from '../../src/wire/agent-bodies.js';
import { refProblem, repoProblem } from '../../src/wire/git-args.js';
import { Workspaces } from '../../src/agents/workspaces.js';
import { realExec, type Exec } from '../../src/core/exec.js';

describe("spawn's git arguments", () => {
  let dir = '';
  let origin = '';
  const calls: string[][] = [];
  const exec: Exec = (file, args, opts) => {
    calls.push([file, ...args]);
    return realExec(file, args, opts);
  };

  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'leo-git-args-'));
    origin = path.join(dir, 'origin');
    const git = (...args: string[]) => execFileSync('git', args, { cwd: origin, stdio: 'pipe' });
    fs.mkdirSync(origin);
    git('init', '-q', '-b', 'main');
    git('-c', 'user.email=t@t', '-c', 'user.name=t', 'commit', '-q', '--allow-empty', '-m', 'first');
    git('branch', 'feature');
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('the spawn body refuses option-like and malformed values, naming the field', () => {
    const refused = (body: object) => {
      const r = SpawnBody.safeParse({ template: 't', ...body });
      assert.ok(!r.success, JSON.stringify(body));
      return r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ');
    };
    assert.match(refused({ repo: '--upload-pack=touch /tmp/pwned' }), /^repo: must not start with "-"/);
    assert.match(refused({ branch: '-f' }), /^branch: must not start with "-"/);
    assert.match(refused({ base: '--orphan' }), /^base: must not start with "-"/);
    assert.match(refused({ branch: 'a..b' }), /^branch: /);
    assert.match(refused({ base: 'main@{1}' }), /^base: /);
    assert.match(refused({ branch: 'x.lock' }), /^branch: /);
    assert.match(refused({ branch: '.hidden/x' }), /^branch: /);
    assert.ok(SpawnBody.safeParse({ template: 't', repo: origin, branch: 'feat/one-2', base: 'origin/main' }).success);
    assert.equal(repoProblem('git@github.com:o/r.git'), null);
    assert.equal(refProblem('release/1.2'), null);
  });

  it('clones with the repo after --, checks out the branch, or makes it from base', async () => {
    const ws = new Workspaces(exec);
    const existing = path.join(dir, 'existing');
    await ws.prepare(existing, { repo: origin, branch: 'feature' });
    assert.equal(
      execFileSync('git', ['-C', existing, 'branch', '--show-current'], { encoding: 'utf8' }).trim(),
      'feature',
    );
    const made = path.join(dir, 'made');
    await ws.prepare(made, { repo: origin, branch: 'new-work' }, 'main');
    assert.equal(
      execFileSync('git', ['-C', made, 'branch', '--show-current'], { encoding: 'utf8' }).trim(),
      'new-work',
    );
    const clone = calls.find((c) => c[1] === 'clone');
    assert.deepEqual(clone?.slice(-3), ['--', origin, existing]);
  });

  it('a template value past the body checks is refused before git runs', async () => {
    const before = calls.length;
    const ws = new Workspaces(exec);
    const target = path.join(dir, 'refused');
    await assert.rejects(ws.prepare(target, { repo: '--upload-pack=touch x', branch: null }), /repo must not start/);
    await assert.rejects(ws.prepare(target, { repo: origin, branch: '-f' }), /branch must not start/);
    assert.equal(calls.length, before, 'git never ran');
    assert.ok(!fs.existsSync(target));
  });

  it('a failed checkout removes its clone, so the next spawn clones afresh', async () => {
    const ws = new Workspaces(exec);
    const target = path.join(dir, 'failed');
    await assert.rejects(
      ws.prepare(target, { repo: origin, branch: 'new-work' }, 'no-such-base'),
      /git checkout -b new-work failed/,
    );
    assert.ok(!fs.existsSync(target), 'the clone a failed spawn made is gone');
    await ws.prepare(target, { repo: origin, branch: 'new-work' }, 'main');
    assert.equal(
      execFileSync('git', ['-C', target, 'branch', '--show-current'], { encoding: 'utf8' }).trim(),
      'new-work',
    );
  });
});
