import fs from 'node:fs/promises';
import path from 'node:path';
import { isInside } from '../core/path-inside.js';

/**
 * Why a requested file path may not be read from a workspace, or null when it is a plain relative path. Pure: no
 * absolute paths, no leading `-`, no `..` or `.git` segment, no NUL or backslash (which git on Linux takes literally, and a reader on
 * another system would not).
 */
export function relativePathProblem(p: string): string | null {
  if (!p) return 'the path is empty';
  if (p.length > 4096) return 'the path is too long';
  if (p.includes('\0') || p.includes('\\')) return 'the path has a NUL or a backslash';
  if (path.posix.isAbsolute(p)) return 'the path must be relative to the workspace';
  // Paths reach git after `--`, where a leading `-` is harmless; refused anyway, so no mistake there ever runs one.
  if (p.startsWith('-')) return 'the path may not start with "-"';
  const segments = p.split('/');
  if (segments.some((s) => s === '..')) return 'the path may not contain ".."';
  if (segments.some((s) => s === '.git')) return 'the path may not name the .git folder';
  return null;
}

/**
 * Whether `rel` (already free of relativePathProblem) stays inside `workspace` once symlinks are resolved: the
 * deepest part of it that exists is resolved with realpath and must lie within the workspace's own real path. A
 * deleted file is checked by its nearest existing folder.
 */
export async function staysInside(workspace: string, rel: string): Promise<boolean> {
  const root = await fs.realpath(workspace);
  let p = path.join(root, rel);
  for (;;) {
    try {
      return isInside(root, await fs.realpath(p));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT' || p === root) return false;
      p = path.dirname(p);
    }
  }
}

/** Why `rel` may not name a file of `workspace` (relativePathProblem, then staysInside), or null. */
export async function pathRefusal(workspace: string, rel: string): Promise<string | null> {
  const problem = relativePathProblem(rel);
  if (problem) return problem;
  return (await staysInside(workspace, rel).catch(() => false)) ? null : 'the path leaves the workspace';
}
