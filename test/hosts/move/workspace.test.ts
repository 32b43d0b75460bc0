// Issue 32, a workspace's trip between hosts: packed on one side and unpacked on the other with real git and tar, the
// result compared with its source (files, modes, symlinks, git status, index and worktree diffs, HEAD, branch, refs).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { describe, it } from 'node:test';
import { realExec } from '../../../src/core/exec.js';
import {
  CorruptPartError,
  TargetNotEmptyError,
  WorkspacePacker,
  WorkspaceTooLargeError,
} from '../../../src/hosts/move/workspace/index.js';
import { WorkspaceManifest } from '../../../src/wire/workspace-pack.js';
import { tempDir } from '../../helpers/temp-home.js';

const packer = new WorkspacePacker(realExec);
const HOSTILE = ['-rf', '--upload-pack=touch pwned', 'with space.txt', 'new\nline.txt'];

function gitIn(repo: string) {
  return (...args: string[]) =>
    execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], {
      cwd: repo,
      stdio: ['ignore', 'pipe', 'pipe'],
    }).toString();
}
const write = (file: string, data: string | Buffer, mode?: number) => {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, data);
  if (mode !== undefined) fs.chmodSync(file, mode);
};
const bytes = (n: number, seed: number) => Buffer.from(Array.from({ length: n }, (_, i) => (i * 31 + seed * 7) % 256));

/** Every path under `dir` but `.git`, with its kind, permission bits and content (a symlink: its target). */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const rel of fs.readdirSync(dir, { recursive: true }).map(String)) {
    if (rel === '.git' || rel.startsWith(`.git${path.sep}`)) continue;
    const full = path.join(dir, rel);
    const st = fs.lstatSync(full);
    const mode = (st.mode & 0o7777).toString(8);
    if (st.isSymbolicLink()) out[rel] = `link -> ${fs.readlinkSync(full)}`;
    else if (st.isDirectory()) out[rel] = `dir ${mode}`;
    else out[rel] = `file ${mode} ${createHash('sha256').update(fs.readFileSync(full)).digest('hex').slice(0, 16)}`;
  }
  return out;
}

/** What a git workspace ships: its snapshot without the ignored files busyRepo plants. */
function shipped(repo: string): Record<string, string> {
  const files = snapshot(repo);
  for (const k of Object.keys(files)) if (k === 'ignored.log' || k.startsWith('build')) delete files[k];
  return files;
}

/** What git says of a repository: its status, both diffs, HEAD, branch and every ref. */
function gitState(repo: string) {
  const git = gitIn(repo);
  const tryGit = (...args: string[]) => {
    try {
      return git(...args);
    } catch {
      return '(fails)';
    }
  };
  return {
    status: git('status', '--porcelain', '-z', '--untracked-files=all'),
    staged: git('diff', '--cached', '--binary'),
    unstaged: git('diff', '--binary'),
    head: tryGit('rev-parse', '-q', '--verify', 'HEAD'),
    branch: tryGit('symbolic-ref', 'HEAD'),
    refs: git('for-each-ref'),
    config: tryGit('config', '--local', '--get-regexp', '^(remote|branch)\\.'),
  };
}

async function roundTrip(src: string) {
  const parts = tempDir('leo-move-parts-');
  const manifest = WorkspaceManifest.parse(JSON.parse(JSON.stringify(await packer.pack(src, parts))));
  const target = path.join(tempDir('leo-move-target-'), 'workspace');
  await packer.unpack(manifest, parts, target);
  return { manifest, parts, target };
}

/**
 * A repository mid-work: two branches and a tag, then staged and unstaged edits (one file both), a staged rename, a
 * deleted file, a changed binary, a mode change, untracked files in new folders (one binary, one executable, hostile
 * names, a symlink out of the tree), ignored files, and committed symlinks in and out of the tree.
 */
function busyRepo() {
  const root = tempDir('leo-move-src-');
  const repo = path.join(root, 'repo');
  fs.mkdirSync(repo);
  const git = gitIn(repo);
  git('init', '-q', '-b', 'main');
  write(path.join(repo, 'a.txt'), 'one\ntwo\nthree\n');
  write(path.join(repo, 'b.sh'), '#!/bin/sh\necho b\n', 0o755);
  write(path.join(repo, 'old-name.txt'), 'rename me\n'.repeat(20));
  write(path.join(repo, 'gone.txt'), 'bye\n');
  write(path.join(repo, 'data.bin'), bytes(4096, 1));
  write(path.join(repo, '.gitignore'), 'ignored.log\nbuild/\n');
  write(path.join(repo, HOSTILE[0]!), 'a tracked file named -rf\n');
  fs.symlinkSync('a.txt', path.join(repo, 'link-in'));
  fs.symlinkSync(path.join(root, 'outside.txt'), path.join(repo, 'link-out'));
  git('add', '-A');
  git('commit', '-q', '-m', 'first');
  git('tag', 'v1');
  git('checkout', '-q', '-b', 'feature');
  write(path.join(repo, 'feature.txt'), 'on the feature branch\n');
  git('add', '-A');
  git('commit', '-q', '-m', 'feature work');
  git('checkout', '-q', 'main');
  write(path.join(repo, 'a.txt'), 'one\ntwo\nthree\nfour\n');
  git('commit', '-q', '-am', 'second on main');
  git('remote', 'add', 'origin', 'https://example.com/repo.git');
  git('config', '--add', 'remote.origin.pushurl', '-rf');
  git('config', 'branch.main.remote', 'origin');
  git('config', 'branch.main.merge', 'refs/heads/main');
  git('update-ref', 'refs/remotes/origin/main', 'HEAD~1');
  // Staged, then the same file edited again unstaged.
  write(path.join(repo, 'a.txt'), 'zero\none\ntwo\nthree\nfour\n');
  git('add', 'a.txt');
  write(path.join(repo, 'a.txt'), 'zero\none\ntwo\nthree\nfour\nfive\n');
  write(path.join(repo, 'staged-new.txt'), 'a new staged file\n');
  git('add', 'staged-new.txt');
  git('mv', 'old-name.txt', 'new-name.txt');
  fs.rmSync(path.join(repo, 'gone.txt'));
  write(path.join(repo, 'data.bin'), bytes(5000, 2));
  fs.chmodSync(path.join(repo, 'b.sh'), 0o644);
  write(path.join(repo, HOSTILE[0]!), 'edited\n');
  write(path.join(repo, 'new dir/deep/untracked.txt'), 'untracked in a new folder\n');
  write(path.join(repo, 'new dir/blob.bin'), bytes(3000, 3));
  write(path.join(repo, 'new dir/run.sh'), '#!/bin/sh\n', 0o750);
  for (const name of HOSTILE.slice(1)) write(path.join(repo, 'odd', name), `${name}\n`);
  fs.symlinkSync('/etc/hostname', path.join(repo, 'new dir/points-out'));
  write(path.join(repo, 'ignored.log'), 'ignored\n');
  write(path.join(repo, 'build/out.o'), bytes(2000, 4));
  return { root, repo, git };
}

describe('moving a workspace: pack and unpack', () => {
  it('a busy git workspace arrives with the same files, modes, status, diffs, HEAD, branch and refs', async () => {
    const { repo, git } = busyRepo();
    const remotes = gitState(repo).config;
    // A key naming a program the target would run is left behind.
    git('config', 'remote.origin.uploadpack', 'touch pwned');
    const { manifest, target } = await roundTrip(repo);
    assert.equal(manifest.kind, 'git');
    assert.ok(manifest.kind === 'git');
    assert.equal(manifest.branch, 'main');
    assert.deepEqual(
      manifest.parts.map((p) => p.name),
      ['refs.bundle', 'staged.patch', 'worktree.patch', 'untracked.tar'],
    );
    assert.deepEqual(snapshot(target), shipped(repo));
    assert.deepEqual(gitState(target), { ...gitState(repo), config: remotes });
    assert.match(remotes, /^remote\.origin\.pushurl -rf$/m);
    assert.match(remotes, /^branch\.main\.merge refs\/heads\/main$/m);
    assert.equal(fs.readlinkSync(path.join(target, 'new dir/points-out')), '/etc/hostname');
    assert.equal(fs.statSync(path.join(target, 'new dir/run.sh')).mode & 0o777, 0o750);
    assert.ok(!fs.existsSync(path.join(target, 'ignored.log')), 'an ignored file is not shipped');
    assert.ok(!fs.existsSync(path.join(target, 'build')), 'an ignored folder is not shipped');
    for (const name of HOSTILE.slice(1)) assert.ok(fs.existsSync(path.join(target, 'odd', name)), name);
    assert.ok(!fs.existsSync(path.join(target, 'pwned')) && !fs.existsSync(path.join(repo, 'pwned')));
  });

  it('a detached HEAD off every branch comes back detached at the same commit', async () => {
    const { repo, git } = busyRepo();
    git('stash', '-q', '--include-untracked');
    git('checkout', '-q', '--detach', 'main');
    write(path.join(repo, 'a.txt'), 'detached work\n');
    git('commit', '-q', '-am', 'only reachable from HEAD');
    const { manifest, target } = await roundTrip(repo);
    assert.ok(manifest.kind === 'git');
    assert.equal(manifest.branch, null);
    assert.equal(manifest.head, git('rev-parse', 'HEAD').trim());
    assert.deepEqual(gitState(target), gitState(repo));
    assert.deepEqual(snapshot(target), shipped(repo));
  });

  it('a worktree agent’s linked tree (issue 33) arrives as a plain repository on its branch, with its changes', async () => {
    const { root, git } = busyRepo();
    git('stash', '-q', '--include-untracked');
    const tree = path.join(root, 'worktrees', 'repo', 'den');
    git('worktree', 'add', '-q', '--no-track', '-b', 'leo/den', tree, 'main');
    const inTree = gitIn(tree);
    write(path.join(tree, 'den.txt'), 'committed in the tree\n');
    inTree('add', '-A');
    inTree('commit', '-q', '-m', 'den’s work');
    write(path.join(tree, 'a.txt'), 'uncommitted in the tree\n');
    write(path.join(tree, 'draft.md'), 'untracked in the tree\n');
    const { manifest, target } = await roundTrip(tree);
    assert.ok(manifest.kind === 'git');
    assert.equal(manifest.branch, 'leo/den');
    assert.ok(fs.statSync(path.join(target, '.git')).isDirectory(), 'a repository of its own, not a worktree');
    assert.deepEqual(gitState(target), gitState(tree));
    assert.deepEqual(snapshot(target), shipped(tree));
  });

  it('an empty repository (no commit yet) keeps its branch, its staged files and its untracked ones', async () => {
    const repo = tempDir('leo-move-empty-');
    const git = gitIn(repo);
    git('init', '-q', '-b', 'trunk');
    write(path.join(repo, 'staged.txt'), 'staged before any commit\n');
    git('add', 'staged.txt');
    write(path.join(repo, 'loose.txt'), 'untracked\n');
    const { manifest, target } = await roundTrip(repo);
    assert.deepEqual(
      {
        kind: manifest.kind,
        branch: manifest.kind === 'git' && manifest.branch,
        head: manifest.kind === 'git' && manifest.head,
      },
      { kind: 'git', branch: 'trunk', head: null },
    );
    assert.ok(!manifest.parts.some((p) => p.name === 'refs.bundle'));
    assert.deepEqual(gitState(target), gitState(repo));
    assert.deepEqual(snapshot(target), snapshot(repo));
  });

  it('a folder that is no git repository travels as one tar: files, modes, symlinks and odd names', async () => {
    const dir = tempDir('leo-move-plain-');
    write(path.join(dir, 'notes.md'), '# notes\n');
    write(path.join(dir, 'bin/tool'), '#!/bin/sh\n', 0o700);
    write(path.join(dir, 'img.bin'), bytes(2048, 5));
    fs.mkdirSync(path.join(dir, 'empty folder'));
    fs.symlinkSync('notes.md', path.join(dir, 'link-in'));
    fs.symlinkSync('/etc/hostname', path.join(dir, 'link-out'));
    for (const name of HOSTILE) write(path.join(dir, name), `${name}\n`);
    const { manifest, target } = await roundTrip(dir);
    assert.equal(manifest.kind, 'tree');
    assert.deepEqual(snapshot(target), snapshot(dir));
  });

  it('refuses a part that does not match its sha256, and leaves no target behind', async () => {
    const { repo } = busyRepo();
    const parts = tempDir('leo-move-parts-');
    const manifest = await packer.pack(repo, parts);
    const bundle = path.join(parts, 'refs.bundle');
    const data = fs.readFileSync(bundle);
    data.writeUInt8(data.readUInt8(data.length - 30) ^ 0xff, data.length - 30);
    fs.writeFileSync(bundle, data);
    const target = path.join(tempDir('leo-move-target-'), 'workspace');
    await assert.rejects(packer.unpack(manifest, parts, target), (err: Error) => {
      assert.ok(err instanceof CorruptPartError);
      assert.match(err.message, /refs\.bundle does not match its sha256/);
      return true;
    });
    assert.ok(!fs.existsSync(target));
  });

  it('refuses a manifest carrying a config key that could run a program, before anything is unpacked', async () => {
    const { repo } = busyRepo();
    const parts = tempDir('leo-move-parts-');
    const manifest = await packer.pack(repo, parts);
    assert.ok(manifest.kind === 'git');
    const hostile = {
      ...manifest,
      config: [...manifest.config, ['core.fsmonitor', 'touch pwned'] as [string, string]],
    };
    assert.equal(WorkspaceManifest.safeParse(hostile).success, false);
    const target = path.join(tempDir('leo-move-target-'), 'workspace');
    await assert.rejects(packer.unpack(hostile, parts, target), /config key core\.fsmonitor is not carried/);
    assert.ok(!fs.existsSync(target));
  });

  it('refuses a target that holds anything', async () => {
    const dir = tempDir('leo-move-plain-');
    write(path.join(dir, 'x'), 'x');
    const parts = tempDir('leo-move-parts-');
    const manifest = await packer.pack(dir, parts);
    const target = tempDir('leo-move-target-');
    write(path.join(target, 'already-here'), 'mine');
    await assert.rejects(packer.unpack(manifest, parts, target), TargetNotEmptyError);
    assert.deepEqual(fs.readdirSync(target), ['already-here']);
  });

  it('measures what would ship (ignored files not counted) and refuses over the limit, naming the size', async () => {
    const { repo } = busyRepo();
    write(path.join(repo, 'build/huge.o'), bytes(200_000, 6));
    const size = await packer.measure(repo);
    assert.equal(size.kind, 'git');
    assert.ok(size.bytes > 3000 + 5000, `${size.bytes}`);
    assert.ok(size.bytes < 200_000, `ignored files are not counted: ${size.bytes}`);
    write(path.join(repo, 'big.bin'), bytes(300_000, 7));
    await assert.rejects(packer.measure(repo, 256 * 1024), (err: Error) => {
      assert.ok(err instanceof WorkspaceTooLargeError);
      assert.equal(err.code, 'workspace_too_large');
      assert.match(err.message, /^the workspace is \d+\.\d KiB, over the move limit of 256\.0 KiB$/);
      assert.ok((err.details!.bytes as number) > 300_000);
      return true;
    });
    const plain = tempDir('leo-move-plain-');
    write(path.join(plain, 'a/b.bin'), bytes(10_000, 8));
    assert.deepEqual(await packer.measure(plain), { kind: 'tree', bytes: 10_000 });
    await assert.rejects(packer.measure(plain, 9_999), /the workspace is 9\.8 KiB/);
  });
});
