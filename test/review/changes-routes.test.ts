// Review (issue 17): GET /api/v1/agents/:name/changes and …/changes/diff against a real git repository as an agent's
// workspace, git run on the daemon's exec host: the status parsed, diffs against HEAD, an untracked file as a new-file
// diff, the path checks and the caps.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { MAX_OUTPUT_BYTES, realExec } from '../../src/core/exec.js';
import { parsePorcelainV2 } from '../../src/review/git-status.js';
import { WorkspaceChanges } from '../../src/review/workspace-changes.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { makeChangedRepo } from '../helpers/git-repo.js';
import { tempDir } from '../helpers/temp-home.js';
import { Changes, FileDiff } from '../../src/wire/changes.js';
import { IssuedToken } from '../../src/wire/tokens.js';

describe('review: an agent workspace’s changes', () => {
  let t: TestDaemon;
  let repo: string;
  let device: string;
  const get = (p: string) => t.as(device).op('GET', p);
  const diffPath = (file: string) => `/api/v1/agents/dev/changes/diff?path=${encodeURIComponent(file)}`;
  const diff = (file: string) => get(diffPath(file));
  const diffOf = (file: string) => t.as(device).get(diffPath(file), FileDiff);

  before(async () => {
    ({ repo } = makeChangedRepo());
    const plain = tempDir('leo-plain-');
    const gone = tempDir('leo-gone-');
    t = await startTestDaemon({
      config: `templates:
  dev: { harness: shell, command: "exec cat", workspace: ${JSON.stringify(repo)} }
  plain: { harness: shell, command: "exec cat", workspace: ${JSON.stringify(plain)} }
  gone: { harness: shell, command: "exec cat", workspace: ${JSON.stringify(gone)} }
`,
    });
    for (const name of ['dev', 'plain', 'gone']) {
      const r = await t.op('POST', '/api/v1/agents/spawn', { template: name, name });
      assert.equal(r.status, 201, r.text);
    }
    fs.rmSync(gone, { recursive: true });
    const d = await t.op('POST', '/api/v1/devices', { name: 'phone' });
    device = IssuedToken.parse(d.json.data).token;
  });
  after(async () => t?.stop());

  it('lists the modified, deleted and untracked files, each by its path', async () => {
    const changes = await t.as(device).get('/api/v1/agents/dev/changes', Changes);
    const byPath = Object.fromEntries(changes.files.map((f) => [f.path, f.kind]));
    assert.deepEqual(byPath, { 'src/app.ts': 'modified', 'gone.txt': 'deleted', 'notes/new file.md': 'untracked' });
    assert.equal(changes.truncated, false);
    assert.equal(changes.workspace, repo);
    // The last commit, for a pull request's title.
    const head = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: repo, encoding: 'utf8' }).trim();
    assert.deepEqual(changes.head, { commit: head, subject: 'start' });
  });

  it("a tracked file's diff is against HEAD; an untracked one is a new-file diff; an unchanged one is empty", async () => {
    const mod = await diffOf('src/app.ts');
    assert.match(mod.diff, /^-export const b = 2;$/m);
    assert.match(mod.diff, /^\+export const b = 3; \/\/ <b>bold<\/b>$/m);
    const fresh = await diffOf('notes/new file.md');
    assert.match(fresh.diff, /^new file mode/m);
    assert.match(fresh.diff, /^\+a new note$/m);
    assert.match((await diffOf('gone.txt')).diff, /^deleted file mode/m);
    assert.equal((await diffOf('README.md')).diff, '');
  });

  it('refuses a path that leaves the workspace: .., absolute, .git, a symlink out', async () => {
    for (const bad of [
      '../outside-secret.txt',
      'src/../../outside-secret.txt',
      '/etc/passwd',
      '.git/config',
      'escape',
      '',
    ]) {
      const r = await diff(bad);
      assert.equal(r.status, 400, `${bad}: ${r.text}`);
      assert.doesNotMatch(r.text, /secret outside/);
    }
  });

  it('a workspace that is no git repository or is gone is a 409; an unknown agent a 404; API clients are refused', async () => {
    assert.equal((await get('/api/v1/agents/plain/changes')).json.code, 'not_a_git_repo');
    assert.equal((await get('/api/v1/agents/nobody/changes')).status, 404);
    const gone = await get('/api/v1/agents/gone/changes');
    assert.equal(gone.json.code, 'workspace_missing', gone.text);
    const c = await t.op('POST', '/api/v1/clients', { name: 'dash' });
    assert.equal(
      (await t.as(IssuedToken.parse(c.json.data).token).op('GET', '/api/v1/agents/dev/changes')).status,
      403,
    );
  });

  it('caps the file list and a long diff, saying so', async () => {
    const changes = new WorkspaceChanges(realExec, { files: 2, diffBytes: 120 });
    const status = await changes.status(repo);
    assert.equal(status.files.length, 2);
    assert.equal(status.truncated, true);
    const cut = await changes.diff(repo, 'notes/new file.md');
    assert.equal(cut.truncated, true);
    assert.ok(Buffer.byteLength(cut.diff) <= 120 && cut.diff.endsWith('\n'));
  });

  it('a diff longer than a program may print (16 MB) is a cut diff, not an error', async () => {
    const big = path.join(repo, 'huge.txt');
    fs.writeFileSync(big, 'a line of an enormous log file an agent left behind\n'.repeat(360_000));
    try {
      assert.ok(fs.statSync(big).size > MAX_OUTPUT_BYTES);
      const r = await diffOf('huge.txt');
      assert.equal(r.truncated, true);
      assert.ok(r.diff.startsWith('diff --git'));
      const changes = new WorkspaceChanges(realExec, { files: 100, diffBytes: 2 * MAX_OUTPUT_BYTES });
      const whole = await changes.diff(repo, 'huge.txt');
      assert.equal(whole.truncated, true, 'cut at the exec seam even when the cap is larger');
    } finally {
      fs.rmSync(big);
    }
  });

  it('parses renames (their original path is the next record) and keeps spaces in paths', () => {
    const out =
      '# branch.oid abc\0' +
      '2 R. N... 100644 100644 100644 aaa bbb R100 new name.ts\0old name.ts\0' +
      '1 .M N... 100644 100644 100644 aaa aaa a b.ts\0? x y\0! ignored\0';
    assert.deepEqual(parsePorcelainV2(out, 10).files, [
      { path: 'new name.ts', orig_path: 'old name.ts', kind: 'renamed', index: 'R', worktree: '.' },
      { path: 'a b.ts', kind: 'modified', index: '.', worktree: 'M' },
      { path: 'x y', kind: 'untracked', index: '?', worktree: '?' },
    ]);
  });
});
