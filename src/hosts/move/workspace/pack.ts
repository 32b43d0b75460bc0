import fs from 'node:fs';
import path from 'node:path';
import type { Exec } from '../../../core/exec.js';
import { SHIPPED_GIT_CONFIG, type WorkspaceManifest, type WorkspacePartName } from '../../../wire/workspace-pack.js';
import { gitIn, LONG_RUN_MS, succeeded } from './git-run.js';
import { isGitWorkspace } from './measure.js';
import { describePart } from './parts.js';
import { tarNames, tarTree } from './tar-run.js';

/**
 * Diff flags that make a patch `git apply` takes whatever the repository's config says: binary hunks, the a/ b/
 * prefixes, whole-tree paths, no external diff or text conversion, renames as renames.
 */
const PATCH_FLAGS = [
  '--binary',
  '--no-color',
  '--no-ext-diff',
  '--no-textconv',
  '--no-relative',
  '--src-prefix=a/',
  '--dst-prefix=b/',
  '-M',
];

/** Packs the workspace `dir` into the folder `out` (created if missing): its parts and the manifest naming them. */
export async function packWorkspace(exec: Exec, dir: string, out: string): Promise<WorkspaceManifest> {
  const src = path.resolve(dir);
  const to = path.resolve(out);
  fs.mkdirSync(to, { recursive: true });
  if (!isGitWorkspace(src)) {
    await tarTree(exec, src, path.join(to, 'tree.tar'));
    return { version: 1, kind: 'tree', parts: [await describePart(to, 'tree.tar')] };
  }
  const git = gitIn(exec, src);
  const headRun = await git(['rev-parse', '-q', '--verify', 'HEAD^{commit}']);
  const head = headRun.code === 0 ? headRun.stdout.trim() : null;
  const branchRun = await git(['symbolic-ref', '-q', '--short', 'HEAD']);
  const branch = branchRun.code === 0 ? branchRun.stdout.trim() : null;
  const refs = succeeded('git for-each-ref', await git(['for-each-ref', '--format=%(refname)']));

  const names: WorkspacePartName[] = [];
  // A repository with no commit yet has no ref to bundle (git refuses an empty bundle): its staged files travel in the
  // staged patch, which git diffs against the empty tree.
  if (head || refs.trim()) {
    succeeded('git bundle', await git(['bundle', 'create', '-q', path.join(to, 'refs.bundle'), '--all'], LONG_RUN_MS));
    names.push('refs.bundle');
  }
  for (const [name, cached] of [
    ['staged.patch', ['--cached']],
    ['worktree.patch', []],
  ] as const) {
    const file = path.join(to, name);
    succeeded(`git diff ${name}`, await git(['diff', ...cached, ...PATCH_FLAGS, `--output=${file}`], LONG_RUN_MS));
    if (fs.statSync(file).size > 0) names.push(name);
    else fs.rmSync(file);
  }
  const untracked = succeeded('git ls-files', await git(['ls-files', '-z', '--others', '--exclude-standard']))
    .split('\0')
    .filter(Boolean);
  if (untracked.length > 0) {
    await tarNames(exec, src, untracked, path.join(to, 'untracked.tar'));
    names.push('untracked.tar');
  }
  const parts = await Promise.all(names.map((name) => describePart(to, name)));
  return { version: 1, kind: 'git', branch, head, config: await shippedConfig(git), parts };
}

/** The repository's own remote and upstream settings (not the user's or the system's), as SHIPPED_GIT_CONFIG keeps. */
async function shippedConfig(git: ReturnType<typeof gitIn>): Promise<[string, string][]> {
  const r = await git(['config', '--local', '-z', '--get-regexp', '^(remote|branch)\\.']);
  // Exit 1: no such key at all.
  if (r.code === 1) return [];
  return succeeded('git config', r)
    .split('\0')
    .filter(Boolean)
    .map((record): [string, string] => {
      const nl = record.indexOf('\n');
      return nl < 0 ? [record, ''] : [record.slice(0, nl), record.slice(nl + 1)];
    })
    .filter(([key]) => SHIPPED_GIT_CONFIG.test(key));
}
