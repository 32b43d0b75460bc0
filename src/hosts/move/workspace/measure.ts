import fs from 'node:fs';
import path from 'node:path';
import type { Exec } from '../../../core/exec.js';
import { LeoError } from '../../../core/leo-error.js';
import { gitIn, succeeded } from './git-run.js';

/** The move's size limit when the config names none. */
export const DEFAULT_WORKSPACE_LIMIT_BYTES = 1024 ** 3;

export interface WorkspaceSize {
  kind: 'git' | 'tree';
  /** About the bytes the packed parts will hold (see measureWorkspace). */
  bytes: number;
}

/** The workspace is over the limit: the answer names both sizes. */
export class WorkspaceTooLargeError extends LeoError {
  constructor(bytes: number, limit: number) {
    super(
      409,
      `the workspace is ${formatBytes(bytes)}, over the move limit of ${formatBytes(limit)}`,
      'workspace_too_large',
      { bytes, limit },
    );
  }
}

/** A git workspace is one whose root holds `.git` (a folder, or a file in a linked worktree). */
export const isGitWorkspace = (dir: string) => fs.existsSync(path.join(dir, '.git'));

/**
 * What a move of `dir` would ship, refused over `limit`, found without packing anything. For git: the repository's
 * object store (loose and packed, as `git count-objects` counts it, so never a walk of the history; the bundle holds
 * only the reachable part) plus each untracked or changed file at its size on disk (a text file's patch is smaller; a
 * changed binary's carries both sides, base85, up to 2.6 times the file; the packed parts' own sizes are exact).
 * Ignored files (a node_modules, a build folder) are not shipped and not counted. For any other folder: the size of
 * every file in the tree, symlinks at their own size and never followed.
 */
export async function measureWorkspace(
  exec: Exec,
  dir: string,
  limit = DEFAULT_WORKSPACE_LIMIT_BYTES,
): Promise<WorkspaceSize> {
  const size: WorkspaceSize = isGitWorkspace(dir)
    ? { kind: 'git', bytes: await gitBytes(exec, dir) }
    : { kind: 'tree', bytes: await treeBytes(dir) };
  if (size.bytes > limit) throw new WorkspaceTooLargeError(size.bytes, limit);
  return size;
}

async function gitBytes(exec: Exec, dir: string): Promise<number> {
  const git = gitIn(exec, dir);
  const counts = succeeded('git count-objects', await git(['count-objects', '-v']));
  const kib = (key: string) => Number(new RegExp(`^${key}: (\\d+)$`, 'm').exec(counts)?.[1] ?? 0);
  let bytes = (kib('size') + kib('size-pack') + kib('size-garbage')) * 1024;
  const listed = await Promise.all([
    git(['ls-files', '-z', '--others', '--exclude-standard']),
    git(['diff', '-z', '--name-only', '--no-renames', '--cached']),
    git(['diff', '-z', '--name-only', '--no-renames']),
  ]);
  const files = new Set(listed.flatMap((r) => succeeded('git ls-files', r).split('\0').filter(Boolean)));
  for (const file of files) bytes += lstatSize(path.join(dir, file));
  return bytes;
}

async function treeBytes(dir: string): Promise<number> {
  let bytes = 0;
  for (const entry of await fs.promises.readdir(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    bytes += entry.isDirectory() ? await treeBytes(full) : lstatSize(full);
  }
  return bytes;
}

/** A file's size, or 0 for one gone since it was listed (a deletion the patch carries as a line). */
function lstatSize(file: string): number {
  try {
    return fs.lstatSync(file).size;
  } catch {
    return 0;
  }
}

export function formatBytes(n: number): string {
  const units = ['bytes', 'KiB', 'MiB', 'GiB', 'TiB'];
  let i = 0;
  let v = n;
  while (v >= 1024 && i < units.length - 1) {
    v /= 1024;
    i++;
  }
  return i === 0 ? `${n} bytes` : `${v.toFixed(1)} ${units[i]}`;
}
