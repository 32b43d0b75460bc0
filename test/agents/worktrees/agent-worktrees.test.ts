// Issue 33: a git worktree per agent, against real git with a bare repository as the remote. Two agents spawned with
// `worktree: true` on one repository each work in their own tree on `leo/<agent>`, commit and push from the API onto
// their own branch; discard restores a tree; rename takes an unpushed branch along; remove keeps a tree with work in
// it (and says so), takes a clean pushed one away, and `force` takes it anyway; a hostile base or branch is a 400.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { RemovedAgent } from '../../../src/wire/agent-bodies.js';
import { CommitResult, DiscardResult, PushResult } from '../../../src/wire/changes.js';
import { Agent, StateSnapshot } from '../../../src/wire/fleet.js';
import { MessagePage } from '../../../src/wire/message.js';
import { runLeoAsync } from '../../helpers/cli.js';
import { startTestDaemon, type TestDaemon } from '../../helpers/daemon.js';
import { tempDir } from '../../helpers/temp-home.js';
import { until } from '../../helpers/wait.js';

describe('a git worktree per agent', () => {
  let t: TestDaemon;
  let root: string;
  let repo: string;
  let bare: string;
  const trees = new Map<string, string>();
  const env = () => ({ ...process.env, HOME: root, GIT_CONFIG_NOSYSTEM: '1' });
  const git = (cwd: string, ...args: string[]) =>
    execFileSync('git', args, { cwd, encoding: 'utf8', env: env() }).trim();
  const inBare = (ref: string) => git(bare, 'rev-parse', '-q', '--verify', ref);
  const branches = () =>
    git(repo, 'branch', '--list', '--format=%(refname:short)', 'leo/*').split('\n').filter(Boolean);
  const spawn = async (body: object) => {
    const r = await t.op('POST', '/api/v1/agents/spawn', body);
    assert.equal(r.status, 201, r.text);
    const a = Agent.parse(r.json.data);
    trees.set(a.name, a.workspace);
    return a;
  };
  const act = async <T>(agent: string, action: string, body: object, parse: (v: unknown) => T) => {
    const r = await t.op('POST', `/api/v1/agents/${agent}/changes/${action}`, body);
    assert.equal(r.status, 200, `${agent} ${action}: ${r.text}`);
    return parse(r.json.data);
  };
  const remove = async (agent: string, force = false) => {
    const r = await t.op('DELETE', `/api/v1/agents/${agent}${force ? '?force=true' : ''}`);
    assert.equal(r.status, 200, r.text);
    return RemovedAgent.parse(r.json.data);
  };
  const tree = (agent: string) => trees.get(agent) ?? assert.fail(`no tree for ${agent}`);

  before(async () => {
    root = tempDir('leo-worktrees-');
    repo = path.join(root, 'widget');
    bare = path.join(root, 'origin.git');
    fs.mkdirSync(repo);
    git(root, 'init', '-q', '--bare', '-b', 'main', bare);
    git(repo, 'init', '-q', '-b', 'main');
    git(repo, 'config', 'user.name', 'Leo Tester');
    git(repo, 'config', 'user.email', 'tester@example.com');
    fs.writeFileSync(path.join(repo, 'README.md'), '# widget\n');
    git(repo, 'add', '-A');
    git(repo, 'commit', '-q', '-m', 'start');
    git(repo, 'remote', 'add', 'origin', bare);
    git(repo, 'push', '-q', '-u', 'origin', 'main');
    const ws = JSON.stringify(repo);
    t = await startTestDaemon({
      // Each agent's own shell writes its name into its working folder: the agent runs in its tree.
      config: `templates:
  dev: { harness: shell, command: "echo $LEO_AGENT > who.txt; exec cat", workspace: ${ws}, worktree: true }
  plain: { harness: shell, command: "echo $LEO_AGENT > who.txt; exec cat", workspace: ${ws} }
`,
      env: { HOME: root, GIT_CONFIG_NOSYSTEM: '1' },
    });
  });
  after(async () => t?.stop());

  it('two agents on one repository each get their own tree on leo/<agent>, shown in the record and the state', async () => {
    const ann = await spawn({ template: 'dev', name: 'ann' });
    const bob = await spawn({ template: 'plain', name: 'bob', worktree: true, base: 'main' });
    assert.deepEqual([ann.branch, bob.branch], ['leo/ann', 'leo/bob']);
    assert.notEqual(ann.workspace, bob.workspace);
    for (const a of [ann, bob]) {
      assert.equal(a.workspace, path.join(fs.realpathSync(t.home), 'worktrees', 'widget', a.name));
      assert.equal(git(a.workspace, 'branch', '--show-current'), a.branch);
      await until(
        `${a.name} writes in its tree`,
        () => fs.readFileSync(path.join(a.workspace, 'who.txt'), 'utf8'),
        10_000,
      );
      assert.equal(fs.readFileSync(path.join(a.workspace, 'who.txt'), 'utf8'), `${a.name}\n`);
    }
    const state = await t.get('/api/v1/state', StateSnapshot);
    assert.deepEqual(
      state.agents.map((a) => [a.name, a.workspace, a.branch]),
      [ann, bob].map((a) => [a.name, a.workspace, a.branch]),
    );
    assert.equal(git(repo, 'status', '--porcelain'), '', 'the repository’s own tree is untouched');
    assert.equal(git(repo, 'branch', '--show-current'), 'main');
  });

  it('each commits and pushes from the API, landing on its own branch in the bare repository', async () => {
    for (const name of ['ann', 'bob']) {
      fs.writeFileSync(path.join(tree(name), `${name}.txt`), `work of ${name}\n`);
      const c = await act(name, 'commit', { message: `Work of ${name}` }, CommitResult.parse);
      assert.equal(c.branch, `leo/${name}`);
      assert.deepEqual(git(tree(name), 'show', '--name-only', '--format=', 'HEAD').split('\n').sort(), [
        `${name}.txt`,
        'who.txt',
      ]);
      const p = await act(name, 'push', {}, PushResult.parse);
      assert.deepEqual([p.remote, p.remote_branch, p.set_upstream], ['origin', `leo/${name}`, true]);
      assert.equal(inBare(`refs/heads/leo/${name}`), c.commit);
    }
    assert.notEqual(inBare('refs/heads/leo/ann'), inBare('refs/heads/leo/bob'));
    assert.equal(inBare('refs/heads/main'), git(repo, 'rev-parse', 'main'), 'main untouched');
    assert.ok(!fs.existsSync(path.join(tree('bob'), 'ann.txt')), 'one agent’s files never reach the other’s tree');
  });

  it('discard restores the tree', async () => {
    fs.writeFileSync(path.join(tree('ann'), 'README.md'), 'scribbled\n');
    fs.writeFileSync(path.join(tree('ann'), 'junk.txt'), 'junk\n');
    const d = await act('ann', 'discard', { paths: ['README.md', 'junk.txt'] }, DiscardResult.parse);
    assert.deepEqual([d.restored, d.removed], [['README.md'], ['junk.txt']]);
    assert.equal(fs.readFileSync(path.join(tree('ann'), 'README.md'), 'utf8'), '# widget\n');
    assert.equal(git(tree('ann'), 'status', '--porcelain'), '');
  });

  it('rename takes an unpushed branch along; a pushed one keeps its name, and the thread says why', async () => {
    const cid = await spawn({ template: 'dev', name: 'cid' });
    const cyd = await t.op('POST', '/api/v1/agents/cid/rename', { name: 'cyd' });
    assert.equal(cyd.status, 200, cyd.text);
    trees.set('cyd', cid.workspace);
    const after = await t.get('/api/v1/agents/cyd', Agent);
    assert.deepEqual([after.branch, after.workspace], ['leo/cyd', cid.workspace]);
    assert.equal(git(cid.workspace, 'branch', '--show-current'), 'leo/cyd');

    const anna = await t.op('POST', '/api/v1/agents/ann/rename', { name: 'anna' });
    assert.equal(anna.status, 200, anna.text);
    trees.set('anna', tree('ann'));
    assert.equal((await t.get('/api/v1/agents/anna', Agent)).branch, 'leo/ann');
    assert.deepEqual(branches(), ['leo/ann', 'leo/bob', 'leo/cyd']);
    // leo/ann is anna's now, checked out in her tree: a new agent named ann may not share it.
    const clash = await t.op('POST', '/api/v1/agents/spawn', { template: 'dev', name: 'ann' });
    assert.equal(clash.status, 409, clash.text);
    assert.equal(clash.json.error, `the branch leo/ann is checked out at ${tree('anna')}`);
    assert.equal((await t.op('GET', '/api/v1/agents/ann')).status, 404);
    const { messages } = await t.get('/api/v1/chat/anna/messages', MessagePage);
    assert.ok(
      messages.some((m) => m.text.includes('The branch leo/ann keeps its name: it is pushed (origin/leo/ann)')),
      JSON.stringify(messages.map((m) => m.text)),
    );
  });

  it('remove takes a clean pushed tree and its branch away; the remote keeps the branch', async () => {
    const r = await remove('bob');
    assert.deepEqual(r.worktree, { path: tree('bob'), branch: 'leo/bob', removed: true, branch_removed: true });
    assert.ok(!fs.existsSync(tree('bob')));
    assert.deepEqual(branches(), ['leo/ann', 'leo/cyd']);
    assert.ok(inBare('refs/heads/leo/bob'));
  });

  it('remove keeps a tree with uncommitted files and says so (CLI too); the same name takes it back; force removes it', async () => {
    fs.writeFileSync(path.join(tree('anna'), 'draft.txt'), 'unfinished\n');
    const cli = await runLeoAsync(['agent', 'remove', 'anna'], {
      ...process.env,
      LEO_HOME: t.home,
      LEO_SOCKET: t.daemon.paths.socketFile,
    });
    assert.equal(cli.status, 0, cli.stderr);
    assert.equal(
      cli.stdout.trim(),
      `removed anna; kept its worktree ${tree('anna')} (branch leo/ann): 1 uncommitted file; ` +
        'an agent spawned with the same name takes the tree back',
    );
    assert.ok(fs.existsSync(path.join(tree('anna'), 'draft.txt')));
    assert.ok(!(await t.op('GET', '/api/v1/agents/anna')).status.toString().startsWith('2'), 'the agent is gone');

    // Its branch leo/ann is checked out in the kept tree, which no agent uses: a new agent named ann takes it back.
    const again = await spawn({ template: 'dev', name: 'ann' });
    assert.deepEqual([again.workspace, again.branch], [tree('anna'), 'leo/ann']);
    assert.ok(fs.existsSync(path.join(again.workspace, 'draft.txt')), 'the kept work is there');

    const forced = await remove('ann', true);
    assert.deepEqual(forced.worktree, { path: tree('anna'), branch: 'leo/ann', removed: true, branch_removed: true });
    assert.ok(!fs.existsSync(tree('anna')));
  });

  it('remove keeps a tree with unpushed commits; force takes the tree, and the branch stays with its commits', async () => {
    fs.writeFileSync(path.join(tree('cyd'), 'local.txt'), 'never pushed\n');
    const c = await act('cyd', 'commit', { message: 'Local only' }, CommitResult.parse);
    const first = await remove('cyd');
    assert.deepEqual(first.worktree, {
      path: tree('cyd'),
      branch: 'leo/cyd',
      removed: false,
      branch_removed: false,
      kept: '1 commit on no other branch (not pushed); an agent spawned with the same name takes the tree back',
    });
    assert.ok(fs.existsSync(tree('cyd')));
    // The kept tree comes back under the same name, and goes with force; its commit stays on the branch.
    await spawn({ template: 'dev', name: 'cyd' });
    const forced = await remove('cyd', true);
    assert.deepEqual(forced.worktree, {
      path: tree('cyd'),
      branch: 'leo/cyd',
      removed: true,
      branch_removed: false,
      kept: 'the branch leo/cyd stays: 1 commit on no other branch (not pushed)',
    });
    assert.ok(!fs.existsSync(tree('cyd')));
    assert.equal(git(repo, 'rev-parse', 'leo/cyd'), c.commit);

    // A later agent of that name works on the kept branch again, in a fresh tree.
    const back = await spawn({ template: 'dev', name: 'cyd', base: 'main' });
    assert.equal(git(back.workspace, 'rev-parse', 'HEAD'), c.commit);
    await remove('cyd', true);
  });

  it('a hostile base or branch is a 400 and runs nothing; a base that is no commit leaves nothing behind', async () => {
    const pwned = path.join(root, 'pwned');
    const hostile: object[] = [
      { template: 'dev', name: 'evil', base: `--upload-pack=touch ${pwned}` },
      { template: 'plain', name: 'evil', worktree: true, base: '-b' },
      { template: 'plain', name: 'evil', worktree: true, branch: `--upload-pack=touch ${pwned}` },
      { template: 'dev', name: 'evil', branch: 'feature' },
      { template: 'dev', name: 'evil', base: 'no-such-branch' },
    ];
    for (const body of hostile) {
      const r = await t.op('POST', '/api/v1/agents/spawn', body);
      assert.equal(r.status, 400, `${JSON.stringify(body)}: ${r.text}`);
    }
    assert.ok(!fs.existsSync(pwned));
    assert.equal((await t.op('GET', '/api/v1/agents/evil')).status, 404);
    assert.ok(!branches().includes('leo/evil'));
    assert.ok(!fs.existsSync(path.join(t.home, 'worktrees', 'widget', 'evil')));
    assert.equal(git(repo, 'worktree', 'list', '--porcelain').match(/^worktree /gm)?.length, 1, 'only the repository');
  });
});
