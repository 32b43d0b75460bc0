// Issue 33: acting on an agent's changes from the phone, against real git with a bare repository as the remote:
// commit (some paths or all) as the repository's identity, discard, push (setting the upstream the first time), and a
// pull request through a stand-in gh that records its arguments, or the forge's compare page without it. A hostile
// path or ref is a 400 and runs nothing; a turn in progress is a 409 unless forced. Each write done leaves a note in the
// agent's thread, never typed into the agent.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { Changes, CommitResult, DiscardResult, PullRequestResult, PushResult } from '../../../src/wire/changes.js';
import { MessagePage } from '../../../src/wire/message.js';
import { TerminalScreen } from '../../../src/wire/terminal.js';
import { IssuedToken } from '../../../src/wire/tokens.js';
import { untilWorking } from '../../helpers/agent-working.js';
import { startTestDaemon, type TestDaemon } from '../../helpers/daemon.js';
import { makeChangedRepoWithOrigin } from '../../helpers/git-repo.js';
import { tempDir } from '../../helpers/temp-home.js';

/** The remote as the repository names it; pushes go to the bare repository instead (url.<bare>.pushInsteadOf). */
const REMOTE = 'https://github.com/acme/widget.git';

/** A stand-in gh: logged in while `logged-in` lies beside it; `pr create` records its arguments (NUL-ended). */
const FAKE_GH = `#!/bin/sh
dir=$(dirname "$0")
if [ "$1" = auth ]; then
  [ -e "$dir/logged-in" ] && exit 0
  echo "You are not logged into any GitHub hosts." >&2
  exit 1
fi
for a in "$@"; do printf '%s\\0' "$a"; done > "$dir/args"
pwd > "$dir/cwd"
echo "https://github.com/acme/widget/pull/7"
`;

describe('acting on an agent’s changes: commit, discard, push, pull request', () => {
  let t: TestDaemon;
  let root: string;
  let repo: string;
  let outside: string;
  let bare: string;
  let bin: string;
  let phone: string;
  const env = () => ({ ...process.env, HOME: root, GIT_CONFIG_NOSYSTEM: '1' });
  const g = (...args: string[]) => execFileSync('git', args, { cwd: repo, encoding: 'utf8', env: env() }).trim();
  const inBare = (ref: string) =>
    execFileSync('git', ['--git-dir', bare, 'rev-parse', ref], { encoding: 'utf8', env: env() }).trim();
  const post = (action: string, body: object, agent = 'dev') =>
    t.as(phone).op('POST', `/api/v1/agents/${agent}/changes/${action}`, body);
  const data = async <T>(action: string, body: object, parse: (v: unknown) => T, agent = 'dev') => {
    const r = await post(action, body, agent);
    assert.equal(r.status, 200, `${action}: ${r.text}`);
    return parse(r.json.data);
  };
  const changed = async () =>
    Object.fromEntries(
      (await t.get('/api/v1/agents/dev/changes', Changes)).files.map((f) => [f.path, f.kind] as const),
    );

  before(async () => {
    root = tempDir('leo-actions-');
    ({ repo, outside, bare } = makeChangedRepoWithOrigin(root, REMOTE));
    bin = path.join(root, 'bin');
    fs.mkdirSync(bin);
    fs.writeFileSync(path.join(bin, 'gh'), FAKE_GH, { mode: 0o755 });
    const ws = JSON.stringify(repo);
    t = await startTestDaemon({
      config: `templates:
  dev: { harness: shell, command: "exec cat", workspace: ${ws} }
  ticker: { harness: shell, command: "while true; do echo tick; sleep 0.3; done", workspace: ${ws} }
`,
      env: { PATH: `${bin}${path.delimiter}${process.env.PATH}`, HOME: root, GIT_CONFIG_NOSYSTEM: '1' },
    });
    const spawned = await t.op('POST', '/api/v1/agents/spawn', { template: 'dev', name: 'dev' });
    assert.equal(spawned.status, 201, spawned.text);
    const d = await t.op('POST', '/api/v1/devices', { name: 'phone', fleet: true });
    phone = IssuedToken.parse(d.json.data).token;
  });
  after(async () => t?.stop());

  it('commits only the paths given, as the repository’s identity, on its branch', async () => {
    const c = await data('commit', { message: 'Fix b', paths: ['src/app.ts'] }, CommitResult.parse);
    assert.equal(c.commit, g('rev-parse', 'HEAD'));
    assert.equal(c.branch, 'feature');
    assert.match(c.summary, /^\[feature [0-9a-f]+\] Fix b/);
    assert.equal(g('log', '-1', '--format=%an <%ae>|%s'), 'Leo Tester <tester@example.com>|Fix b');
    assert.equal(g('show', '--name-only', '--format=', 'HEAD'), 'src/app.ts');
    assert.deepEqual(await changed(), { 'gone.txt': 'deleted', 'notes/new file.md': 'untracked' });
  });

  it('pushes a branch with no upstream to origin (-u), then to its upstream: each lands in the bare repository', async () => {
    const first = await data('push', {}, PushResult.parse);
    assert.deepEqual(
      [first.branch, first.remote, first.remote_branch, first.set_upstream],
      ['feature', 'origin', 'feature', true],
    );
    assert.equal(inBare('refs/heads/feature'), g('rev-parse', 'HEAD'));
    assert.equal(g('rev-parse', '--abbrev-ref', 'feature@{upstream}'), 'origin/feature');

    const all = await data('commit', { message: 'The rest' }, CommitResult.parse);
    assert.deepEqual(g('show', '--name-status', '--format=', 'HEAD').split('\n').sort(), [
      'A\tnotes/new file.md',
      'D\tgone.txt',
    ]);
    assert.deepEqual(await changed(), {});
    const nothing = await post('commit', { message: 'Again' });
    assert.deepEqual([nothing.status, nothing.json.code], [409, 'nothing_to_commit']);

    const second = await data('push', {}, PushResult.parse);
    assert.equal(second.set_upstream, false);
    assert.equal(inBare('refs/heads/feature'), all.commit);
    assert.equal(inBare('refs/heads/main'), g('rev-parse', 'main'), 'main untouched');
  });

  it('a push the remote refuses is 409 push_failed with git’s own words', async () => {
    const bareGit = (...args: string[]) =>
      execFileSync('git', ['--git-dir', bare, ...args], { encoding: 'utf8', env: env() }).trim();
    const before = bareGit('rev-parse', 'refs/heads/feature');
    // Someone else pushed to the branch meanwhile: the agent's branch is no longer ahead of it.
    const other = bareGit(
      '-c',
      'user.name=Other',
      '-c',
      'user.email=other@example.com',
      'commit-tree',
      `${before}^{tree}`,
      '-p',
      before,
      '-m',
      'from elsewhere',
    );
    bareGit('update-ref', 'refs/heads/feature', other);
    fs.writeFileSync(path.join(repo, 'later.txt'), 'more\n');
    await data('commit', { message: 'More' }, CommitResult.parse);
    const r = await post('push', {});
    assert.deepEqual([r.status, r.json.code], [409, 'push_failed'], r.text);
    assert.match(r.json.error, /git push failed: .*\n?.*rejected/s);
    assert.equal(bareGit('rev-parse', 'refs/heads/feature'), other, 'the remote branch as it was');
    bareGit('update-ref', 'refs/heads/feature', before);
    await data('push', {}, PushResult.parse);
    assert.equal(bareGit('rev-parse', 'refs/heads/feature'), g('rev-parse', 'HEAD'));
  });

  it('discard restores tracked files (a staged new one goes) and deletes untracked ones, leaving the rest', async () => {
    fs.writeFileSync(path.join(repo, 'README.md'), 'scribbled over\n');
    fs.mkdirSync(path.join(repo, 'scratch'));
    fs.writeFileSync(path.join(repo, 'scratch', 'tmp.txt'), 'junk\n');
    fs.writeFileSync(path.join(repo, 'staged.txt'), 'staged\n');
    g('add', 'staged.txt');
    fs.appendFileSync(path.join(repo, 'src/app.ts'), '// keep me\n');
    const d = await data('discard', { paths: ['README.md', 'scratch', 'staged.txt'] }, DiscardResult.parse);
    assert.deepEqual([d.restored.sort(), d.removed], [['README.md', 'staged.txt'], ['scratch/tmp.txt']]);
    assert.equal(fs.readFileSync(path.join(repo, 'README.md'), 'utf8'), '# demo\n');
    assert.ok(!fs.existsSync(path.join(repo, 'scratch', 'tmp.txt')));
    assert.ok(!fs.existsSync(path.join(repo, 'staged.txt')));
    assert.deepEqual(await changed(), { 'src/app.ts': 'modified' });
    await data('discard', { paths: ['src/app.ts'] }, DiscardResult.parse);
    assert.deepEqual(await changed(), {});
  });

  it('a hostile path or ref is a 400 and runs nothing', async () => {
    fs.writeFileSync(path.join(repo, 'README.md'), 'uncommitted\n');
    const head = g('rev-parse', 'HEAD');
    const hostile: [string, object][] = [
      ['commit', { message: 'x', paths: ['../outside-secret.txt'] }],
      ['commit', { message: 'x', paths: ['README.md', 'escape'] }],
      ['commit', { message: 'x', paths: ['--upload-pack=touch pwned'] }],
      ['commit', { message: 'x', paths: ['.git/config'] }],
      ['commit', { message: 'x', paths: ['/etc/passwd'] }],
      ['discard', { paths: ['src/../../outside-secret.txt'] }],
      ['discard', { paths: ['escape'] }],
      ['discard', { paths: ['-f'] }],
      ['pull-request', { title: 'x', base: '--upload-pack=touch pwned' }],
      ['pull-request', { title: 'x', base: 'main..evil' }],
    ];
    for (const [action, body] of hostile) {
      const r = await post(action, body);
      assert.equal(r.status, 400, `${action} ${JSON.stringify(body)}: ${r.text}`);
    }
    assert.equal(g('rev-parse', 'HEAD'), head);
    assert.equal(fs.readFileSync(path.join(repo, 'README.md'), 'utf8'), 'uncommitted\n');
    assert.equal(fs.readFileSync(outside, 'utf8'), 'secret outside the workspace\n');
    assert.ok(!fs.existsSync(path.join(repo, 'pwned')) && !fs.existsSync(path.join(bin, 'args')));
    await data('discard', { paths: ['README.md'] }, DiscardResult.parse);
  });

  it('opens the pull request with gh when it is logged in: title, body, base and head', async () => {
    fs.writeFileSync(path.join(bin, 'logged-in'), '');
    const body = 'Why:\n- b was wrong\n--base=evil stays text';
    const pr = await data('pull-request', { title: 'Fix the widget', body, base: 'main' }, PullRequestResult.parse);
    assert.deepEqual(pr, {
      agent: 'dev',
      via: 'gh',
      url: 'https://github.com/acme/widget/pull/7',
      head: 'feature',
      base: 'main',
    });
    assert.deepEqual(fs.readFileSync(path.join(bin, 'args'), 'utf8').split('\0').slice(0, -1), [
      'pr',
      'create',
      '--repo=github.com/acme/widget',
      '--head=feature',
      '--title=Fix the widget',
      `--body=${body}`,
      '--base=main',
    ]);
    assert.equal(fs.readFileSync(path.join(bin, 'cwd'), 'utf8').trim(), fs.realpathSync(repo));
  });

  it('without gh logged in, or without gh, answers the forge’s compare page', async () => {
    fs.rmSync(path.join(bin, 'logged-in'));
    fs.rmSync(path.join(bin, 'args'));
    const pr = await data('pull-request', { title: 'Fix it', body: 'Because.', base: 'main' }, PullRequestResult.parse);
    assert.deepEqual(pr, {
      agent: 'dev',
      via: 'compare',
      url: 'https://github.com/acme/widget/compare/main...feature?expand=1&title=Fix+it&body=Because.',
      head: 'feature',
      base: 'main',
    });
    assert.ok(!fs.existsSync(path.join(bin, 'args')), 'gh pr create did not run');
    const noBase = await data('pull-request', { title: 'Fix it' }, PullRequestResult.parse);
    assert.equal(noBase.url, 'https://github.com/acme/widget/compare/feature?expand=1&title=Fix+it');
    // gh not installed at all: the same page.
    fs.renameSync(path.join(bin, 'gh'), path.join(bin, 'gh-away'));
    try {
      const without = await data('pull-request', { title: 'Fix it', base: 'main' }, PullRequestResult.parse);
      assert.deepEqual(
        [without.via, without.url.split('?')[0]],
        ['compare', 'https://github.com/acme/widget/compare/main...feature'],
      );
    } finally {
      fs.renameSync(path.join(bin, 'gh-away'), path.join(bin, 'gh'));
    }
  });

  it('each write done left a note in the thread, naming the device, and none was typed into the agent', async () => {
    const page = MessagePage.parse((await t.op('GET', '/api/v1/chat/dev/messages?limit=100')).json.data);
    const notes = page.messages.filter((m) => m.kind === 'system').map((m) => m.text);
    const of = (re: RegExp) => notes.filter((n) => re.test(n));
    assert.equal(of(/^Committed /).length, 3, notes.join('\n'));
    assert.match(
      of(/^Committed /)[0]!,
      /^Committed from phone: \[feature [0-9a-f]{7,}\] Fix b \(1 file changed, 1 insertion\(\+\), 1 deletion\(-\)\)$/,
    );
    // The refused push left none.
    assert.deepEqual(of(/^Pushed /), [
      'Pushed feature to origin/feature from phone, setting its upstream.',
      'Pushed feature to origin/feature from phone.',
      'Pushed feature to origin/feature from phone.',
    ]);
    assert.ok(
      of(/^Discarded /).some((n) =>
        /^Discarded changes from phone: put back (README\.md, staged\.txt|staged\.txt, README\.md) as last committed; deleted the untracked scratch\/tmp\.txt\.$/.test(
          n,
        ),
      ),
      notes.join('\n'),
    );
    assert.ok(
      notes.includes('Opened a pull request (feature → main) from phone: https://github.com/acme/widget/pull/7'),
    );
    assert.ok(
      notes.includes(
        'Pull request (feature → the default branch) started from phone, to finish on the forge: https://github.com/acme/widget/compare/feature?expand=1&title=Fix+it',
      ),
    );
    assert.ok(page.messages.every((m) => m.kind !== 'system' || m.direction === 'out'));
    const screen = TerminalScreen.parse((await t.op('GET', '/api/v1/agents/dev/terminal')).json.data);
    assert.doesNotMatch(screen.ansi, /Committed|Pushed|Discarded|pull request/);
  });

  it('while the agent is in a turn each write is 409 agent_busy, unless forced', async () => {
    const spawned = await t.op('POST', '/api/v1/agents/spawn', { template: 'ticker', name: 'ticker' });
    assert.equal(spawned.status, 201, spawned.text);
    await untilWorking(t, 'ticker');
    fs.writeFileSync(path.join(repo, 'README.md'), 'mid-turn\n');
    const head = g('rev-parse', 'HEAD');
    for (const [action, body] of [
      ['commit', { message: 'x' }],
      ['discard', { paths: ['README.md'] }],
      ['push', {}],
      ['pull-request', { title: 'x' }],
    ] as const) {
      const r = await post(action, body, 'ticker');
      assert.deepEqual([r.status, r.json.code], [409, 'agent_busy'], `${action}: ${r.text}`);
    }
    assert.equal(g('rev-parse', 'HEAD'), head);
    const forced = await data('discard', { paths: ['README.md'], force: true }, DiscardResult.parse, 'ticker');
    assert.deepEqual(forced.restored, ['README.md']);
    await t.op('POST', '/api/v1/agents/ticker/stop');
  });

  it('fleet writes: a device without the fleet scope and an API client are refused; an unknown agent is 404', async () => {
    const d = await t.op('POST', '/api/v1/devices', { name: 'tablet' });
    const tablet = IssuedToken.parse(d.json.data).token;
    const c = await t.op('POST', '/api/v1/clients', { name: 'dash' });
    const client = IssuedToken.parse(c.json.data).token;
    for (const token of [tablet, client]) {
      const r = await t.as(token).op('POST', '/api/v1/agents/dev/changes/push', {});
      assert.equal(r.status, 403, r.text);
    }
    assert.equal((await post('push', {}, 'nobody')).status, 404);
    assert.equal((await t.op('POST', '/api/v1/agents/dev/changes/push', {})).status, 200, 'the operator');
  });
});
