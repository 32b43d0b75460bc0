// A workspace below its repository's top (a package of a monorepo, where other agents may work in the other
// packages): git's porcelain names paths from the top, the review names them from the workspace and keeps to its
// folder. The list, a diff, the summary (a second edit of a file already changed included), commit all and discard,
// over real git and the daemon's routes.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { realExec } from '../../src/core/exec.js';
import { Changes, CommitResult, DiscardResult, FileDiff } from '../../src/wire/changes.js';
import { IssuedToken } from '../../src/wire/tokens.js';
import { summarize } from '../../workers/change-summary.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { tempDir } from '../helpers/temp-home.js';

describe('review of a workspace below its repository’s top', () => {
  let t: TestDaemon;
  let top: string;
  let web: string;
  let phone: string;
  const g = (...args: string[]) => execFileSync('git', args, { cwd: top, encoding: 'utf8' }).trim();
  const write = (rel: string, text: string) => {
    fs.mkdirSync(path.dirname(path.join(top, rel)), { recursive: true });
    fs.writeFileSync(path.join(top, rel), text);
  };
  const listed = async () =>
    Object.fromEntries(
      (await t.as(phone).get('/api/v1/agents/web/changes', Changes)).files.map((f) => [f.path, f.kind] as const),
    );

  before(async () => {
    top = path.join(tempDir('leo-mono-'), 'mono');
    web = path.join(top, 'packages', 'web');
    write('package.json', '{}\n');
    write('packages/web/src/app.ts', 'export const a = 1;\n');
    write('packages/web/old.txt', 'old\n');
    write('packages/api/src/server.ts', 'export const port = 1;\n');
    g('init', '-q', '-b', 'main');
    g('config', 'user.name', 'Mono Tester');
    g('config', 'user.email', 'mono@example.com');
    g('add', '-A');
    g('commit', '-q', '-m', 'start');
    // The agent's own work in packages/web, and others' elsewhere in the repository.
    write('packages/web/src/app.ts', 'export const a = 2;\n');
    write('packages/web/notes/new file.md', 'one\ntwo\n');
    fs.rmSync(path.join(web, 'old.txt'));
    write('packages/api/src/server.ts', 'export const port = 2;\n');
    write('package.json', '{ "private": true }\n');
    write('packages/api/todo.md', 'theirs\n');
    t = await startTestDaemon({
      config: `templates:\n  web: { harness: shell, command: "exec cat", workspace: ${JSON.stringify(web)} }\n`,
    });
    assert.equal((await t.op('POST', '/api/v1/agents/spawn', { template: 'web', name: 'web' })).status, 201);
    phone = IssuedToken.parse((await t.op('POST', '/api/v1/devices', { name: 'phone', fleet: true })).json.data).token;
  });
  after(async () => t?.stop());

  it('lists the workspace’s own changes, by their paths from it', async () => {
    assert.deepEqual(await listed(), {
      'src/app.ts': 'modified',
      'old.txt': 'deleted',
      'notes/new file.md': 'untracked',
    });
  });

  it('shows a listed file’s diff, named from the workspace', async () => {
    const d = await t
      .as(phone)
      .get(`/api/v1/agents/web/changes/diff?path=${encodeURIComponent('src/app.ts')}`, FileDiff);
    assert.match(d.diff, /^diff --git a\/src\/app\.ts b\/src\/app\.ts$/m);
    assert.match(d.diff, /^-export const a = 1;$/m);
    assert.match(d.diff, /^\+export const a = 2;$/m);
    const fresh = await t
      .as(phone)
      .get(`/api/v1/agents/web/changes/diff?path=${encodeURIComponent('notes/new file.md')}`, FileDiff);
    assert.match(fresh.diff, /^\+two$/m);
  });

  it('sums the same files in the summary, and a second edit of one of them moves it', async () => {
    const look = await summarize(realExec, web, null);
    assert.deepEqual(look.summary, { files: 3, insertions: 3, deletions: 2, ahead: null, behind: null });
    assert.equal((await summarize(realExec, web, look.signature)).summary, 'same');
    fs.appendFileSync(path.join(web, 'src/app.ts'), 'export const b = 3;\n');
    const edited = await summarize(realExec, web, look.signature);
    assert.deepEqual(edited.summary, { files: 3, insertions: 4, deletions: 2, ahead: null, behind: null });
  });

  it('commits all of the workspace’s changes and nothing of the rest of the repository', async () => {
    const r = await t.as(phone).op('POST', '/api/v1/agents/web/changes/commit', { message: 'Web work' });
    assert.equal(r.status, 200, r.text);
    assert.equal(CommitResult.parse(r.json.data).commit, g('rev-parse', 'HEAD'));
    assert.deepEqual(g('show', '--name-status', '--format=', 'HEAD').split('\n').sort(), [
      'A\tpackages/web/notes/new file.md',
      'D\tpackages/web/old.txt',
      'M\tpackages/web/src/app.ts',
    ]);
    assert.deepEqual(await listed(), {});
    const others = execFileSync('git', ['status', '--porcelain'], { cwd: top, encoding: 'utf8' });
    assert.deepEqual(others.split('\n').filter(Boolean).sort(), [
      ' M package.json',
      ' M packages/api/src/server.ts',
      '?? packages/api/todo.md',
    ]);
  });

  it('discards a file by its path from the workspace', async () => {
    fs.appendFileSync(path.join(web, 'src/app.ts'), '// scratch\n');
    assert.deepEqual(await listed(), { 'src/app.ts': 'modified' });
    const r = await t.as(phone).op('POST', '/api/v1/agents/web/changes/discard', { paths: ['src/app.ts'] });
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(DiscardResult.parse(r.json.data), { agent: 'web', restored: ['src/app.ts'], removed: [] });
    assert.deepEqual(await listed(), {});
  });
});
