import fs from 'node:fs';
import path from 'node:path';
import type { Exec } from '../../../core/exec.js';
import { LeoError } from '../../../core/leo-error.js';
import { refProblem } from '../../../wire/git-args.js';
import { SHIPPED_GIT_CONFIG, type WorkspaceManifest, type WorkspacePartName } from '../../../wire/workspace-pack.js';
import { gitIn, LONG_RUN_MS, succeeded } from './git-run.js';
import { verifyParts } from './parts.js';
import { untar } from './tar-run.js';

/** The target folder holds something already: a move never mixes two workspaces. */
export class TargetNotEmptyError extends LeoError {
  constructor(target: string) {
    super(409, `the target workspace ${target} is not empty`, 'workspace_exists');
  }
}

/**
 * Unpacks a packed workspace (its `manifest` and the folder `partsDir` holding the parts) into `target`, which must
 * be missing or empty. Every part is checked against its sha256 first. A git workspace gets the same refs, HEAD
 * (branch or detached), index and working tree as its source; a failure part-way removes what was unpacked.
 */
export async function unpackWorkspace(
  exec: Exec,
  manifest: WorkspaceManifest,
  partsDir: string,
  target: string,
): Promise<void> {
  const to = path.resolve(target);
  const existed = fs.existsSync(to);
  if (existed && (!fs.statSync(to).isDirectory() || fs.readdirSync(to).length > 0)) throw new TargetNotEmptyError(to);
  if (manifest.kind === 'git' && manifest.branch) {
    const why = refProblem(manifest.branch);
    if (why) throw new LeoError(400, `the packed workspace's branch ${why}`, 'invalid');
  }
  // The manifest came from another host: a key outside the list could name a program for the target to run.
  const unshippable = manifest.kind === 'git' && manifest.config.find(([key]) => !SHIPPED_GIT_CONFIG.test(key));
  if (unshippable)
    throw new LeoError(400, `the packed workspace's config key ${unshippable[0]} is not carried`, 'invalid');
  const parts = path.resolve(partsDir);
  await verifyParts(manifest, parts);
  const has = (name: WorkspacePartName) => manifest.parts.some((p) => p.name === name);
  const part = (name: WorkspacePartName) => path.join(parts, name);
  fs.mkdirSync(to, { recursive: true });
  try {
    if (manifest.kind === 'tree') return await untar(exec, part('tree.tar'), to);
    const git = gitIn(exec, to);
    succeeded('git init', await git(['init', '-q']));
    for (const [key, value] of manifest.config)
      succeeded('git config', await git(['config', '--local', '--add', '--', key, value]));
    if (has('refs.bundle')) {
      // Every ref under its own name (not clone's origin/*), and HEAD's commit too when it is detached off any ref.
      const specs = ['+refs/*:refs/*', ...(manifest.head ? ['HEAD'] : [])];
      const fetch = await git(
        ['fetch', '-q', '--update-head-ok', '--no-tags', part('refs.bundle'), ...specs],
        LONG_RUN_MS,
      );
      succeeded('git fetch', fetch);
    }
    if (manifest.branch)
      succeeded('git symbolic-ref', await git(['symbolic-ref', 'HEAD', `refs/heads/${manifest.branch}`]));
    else if (manifest.head) succeeded('git update-ref', await git(['update-ref', '--no-deref', 'HEAD', manifest.head]));
    if (manifest.head) succeeded('git reset', await git(['reset', '-q', '--hard', manifest.head, '--'], LONG_RUN_MS));
    // The staged patch goes to the index and the tree, then the unstaged one to the tree alone: the source's split.
    if (has('staged.patch'))
      succeeded('git apply --index', await git(['apply', '--index', part('staged.patch')], LONG_RUN_MS));
    if (has('worktree.patch')) succeeded('git apply', await git(['apply', part('worktree.patch')], LONG_RUN_MS));
    if (has('untracked.tar')) await untar(exec, part('untracked.tar'), to);
  } catch (err) {
    for (const entry of existed ? fs.readdirSync(to) : [])
      fs.rmSync(path.join(to, entry), { recursive: true, force: true });
    if (!existed) fs.rmSync(to, { recursive: true, force: true });
    throw err;
  }
}
