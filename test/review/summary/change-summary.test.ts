// The change summary (issue 33) over real git: the pool task's look at a workspace (the figures, a look that finds
// nothing moved, an upstream's ahead and behind, no repository), and the service that spaces the looks and publishes
// only what changed, driven on a ManualClock through the real worker pool.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, describe, it } from 'node:test';
import { ManualClock } from '../../../src/core/clock.js';
import { realExec, type Exec } from '../../../src/core/exec.js';
import { WorkerPool } from '../../../src/pool/worker-pool.js';
import { ChangeSummaries } from '../../../src/review/summary/change-summaries.js';
import type { ChangeSummary } from '../../../src/wire/changes.js';
import { summarize } from '../../../workers/change-summary.js';
import { makeChangedRepo } from '../../helpers/git-repo.js';
import { tempDir } from '../../helpers/temp-home.js';
import { makeUpstreamRepo } from '../../helpers/upstream-repo.js';

const figures = (files: number, insertions: number, deletions: number, ahead: number | null, behind = ahead) => ({
  files,
  insertions,
  deletions,
  ahead,
  behind,
});

describe('change summary: one look at a workspace', () => {
  it('counts files as the changes route lists them, lines against HEAD, an untracked file’s lines as inserted', async () => {
    const { repo } = makeChangedRepo();
    // src/app.ts: one line changed; gone.txt: one line gone; "notes/new file.md": two new lines, untracked.
    const look = await summarize(realExec, repo, null);
    assert.deepEqual(look.summary, figures(3, 3, 2, null));
    assert.ok(look.signature);
    // Nothing moved: the same signature, no diff run.
    const again = await summarize(realExec, repo, look.signature);
    assert.equal(again.summary, 'same');
    // A further edit to a file already changed moves only its size and mtime.
    fs.appendFileSync(path.join(repo, 'src/app.ts'), 'export const c = 4;\n');
    const edited = await summarize(realExec, repo, look.signature);
    assert.deepEqual(edited.summary, figures(3, 4, 2, null));
  });

  it('says ahead and behind against the upstream: a commit is one ahead, the remote’s own commit one behind', async () => {
    const up = makeUpstreamRepo();
    assert.deepEqual((await summarize(realExec, up.repo, null)).summary, figures(0, 0, 0, 0));
    fs.writeFileSync(path.join(up.repo, 'a.txt'), 'a\nb\n');
    assert.deepEqual((await summarize(realExec, up.repo, null)).summary, figures(1, 2, 0, 0));
    up.commitAll('add a');
    assert.deepEqual((await summarize(realExec, up.repo, null)).summary, figures(0, 0, 0, 1, 0));
    // Someone else pushes to the remote; the clone fetches it.
    const other = path.join(up.root, 'other');
    up.git('clone', '-q', up.remote, other);
    fs.writeFileSync(path.join(other, 'b.txt'), 'b\n');
    for (const args of [
      ['add', '-A'],
      ['commit', '-q', '-m', 'b'],
      ['push', '-q', 'origin', 'main'],
    ])
      up.git('-C', other, ...args);
    up.git('fetch', '-q');
    assert.deepEqual((await summarize(realExec, up.repo, null)).summary, figures(0, 0, 0, 1, 1));
  });

  it('before the first commit a staged file counts against the empty tree; a binary file counts as a file', async () => {
    const repo = tempDir('leo-fresh-');
    fs.writeFileSync(path.join(repo, 'a.txt'), 'one\ntwo\nthree');
    fs.writeFileSync(path.join(repo, 'b.bin'), Buffer.from([1, 0, 2, 10]));
    await realExec('git', ['init', '-q'], { cwd: repo });
    await realExec('git', ['add', 'a.txt'], { cwd: repo });
    assert.deepEqual((await summarize(realExec, repo, null)).summary, figures(2, 3, 0, null));
  });

  it('a folder that is no repository, or is missing, has no summary', async () => {
    const plain = tempDir('leo-plain-');
    assert.equal((await summarize(realExec, plain, null)).summary, null);
    assert.equal((await summarize(realExec, path.join(plain, 'gone'), null)).summary, null);
  });

  it('a folder in no repository is looked at again by git only once a repository could be there', async () => {
    const root = tempDir('leo-plain-');
    const ws = path.join(root, 'project');
    const runs: string[] = [];
    const exec: Exec = (file, args, opts) => (runs.push(String(opts?.cwd)), realExec(file, args, opts));
    let look = await summarize(exec, ws, null);
    assert.equal(look.summary, null);
    const step = async (why: string, expect: { git: boolean; summary?: unknown }) => {
      runs.length = 0;
      look = await summarize(exec, ws, look.signature);
      assert.equal(runs.length > 0, expect.git, `${why}: git ran`);
      if ('summary' in expect) assert.deepEqual(look.summary, expect.summary, why);
    };
    await step('still missing', { git: false, summary: 'same' });
    fs.mkdirSync(ws);
    await step('made', { git: true, summary: null });
    fs.writeFileSync(path.join(ws, 'a.txt'), 'one\n');
    await step('a file written in a plain folder', { git: false, summary: 'same' });
    // A repository begun above it takes the folder in: its file is untracked there.
    await realExec('git', ['init', '-q'], { cwd: root });
    await step('a git init above it', { git: true });
    assert.equal((look.summary as ChangeSummary | null)?.files, 1, 'a summary of the repository above');
    fs.rmSync(path.join(root, '.git'), { recursive: true });
    await step('the repository gone', { git: true, summary: null });
    await realExec('git', ['init', '-q'], { cwd: ws });
    await step('a git init in it', { git: true, summary: figures(1, 1, 0, null) });
  });
});

describe('change summary: the looks and what they publish', () => {
  const pool = new WorkerPool({ threads: 1, maxQueue: 16 });
  after(() => pool.close());

  function setup(agents: { name: string; workspace: string; running: boolean }[]) {
    const clock = new ManualClock(Date.now());
    const published: [string, ChangeSummary | null][] = [];
    const errors: unknown[] = [];
    const summaries = new ChangeSummaries({
      clock,
      pool,
      agents: () => agents,
      publish: (agent, changes) => published.push([agent, changes]),
      onError: (err) => errors.push(err),
    });
    return { clock, summaries, published, errors };
  }

  it('publishes an agent’s first summary and then only a change; agents on one workspace share the look', async () => {
    const up = makeUpstreamRepo();
    const plain = tempDir('leo-plain-');
    const agents = [
      { name: 'den', workspace: up.repo, running: true },
      { name: 'fox', workspace: up.repo, running: false },
      { name: 'owl', workspace: plain, running: true },
    ];
    const s = setup(agents);
    await s.summaries.lookNow();
    assert.deepEqual(s.errors, []);
    // owl's folder is no repository: null, which is where readers start, so no event for it.
    assert.deepEqual(s.published, [
      ['den', figures(0, 0, 0, 0)],
      ['fox', figures(0, 0, 0, 0)],
    ]);
    assert.equal(s.summaries.of('owl'), null);
    assert.equal(s.summaries.of('nobody'), undefined);

    // Nothing changed: the next looks publish nothing.
    s.clock.advance(60_000);
    await s.summaries.lookNow();
    assert.equal(s.published.length, 2);

    fs.writeFileSync(path.join(up.repo, 'new.txt'), 'x\ny\n');
    s.clock.advance(60_000);
    await s.summaries.lookNow();
    assert.deepEqual(s.published.slice(2), [
      ['den', figures(1, 2, 0, 0)],
      ['fox', figures(1, 2, 0, 0)],
    ]);

    // Not due yet: a look now asks nothing of git; a nudge (a turn ended) makes it due at once.
    up.commitAll('new');
    await s.summaries.lookNow();
    assert.equal(s.published.length, 4);
    s.summaries.nudge('den');
    await s.summaries.lookNow();
    assert.deepEqual(s.published.slice(4), [
      ['den', figures(0, 0, 0, 1, 0)],
      ['fox', figures(0, 0, 0, 1, 0)],
    ]);
    assert.deepEqual(s.errors, []);
  });

  it('follows a rename and forgets a removed agent; a repository gone publishes null', async () => {
    const { repo, root } = makeChangedRepo();
    const agents = [{ name: 'den', workspace: repo, running: true }];
    const s = setup(agents);
    await s.summaries.lookNow();
    assert.deepEqual(s.summaries.of('den'), figures(3, 3, 2, null));
    s.summaries.renamed('den', 'wolf');
    agents[0]!.name = 'wolf';
    assert.deepEqual(s.summaries.of('wolf'), figures(3, 3, 2, null));
    assert.equal(s.summaries.of('den'), undefined);

    fs.rmSync(path.join(repo, '.git'), { recursive: true });
    s.clock.advance(60_000);
    await s.summaries.lookNow();
    assert.deepEqual(s.published.at(-1), ['wolf', null]);
    s.summaries.gone('wolf');
    assert.equal(s.summaries.of('wolf'), undefined);
    fs.rmSync(root, { recursive: true });
  });

  it('a stopped agent’s workspace is looked at every 10 s, not every second', async () => {
    const up = makeUpstreamRepo();
    const s = setup([{ name: 'den', workspace: up.repo, running: false }]);
    await s.summaries.lookNow();
    assert.equal(s.published.length, 1);
    fs.writeFileSync(path.join(up.repo, 'new.txt'), 'x\n');
    s.clock.advance(2000);
    await s.summaries.lookNow();
    assert.equal(s.published.length, 1);
    s.clock.advance(60_000);
    await s.summaries.lookNow();
    assert.deepEqual(s.published[1], ['den', figures(1, 1, 0, 0)]);
  });
});
