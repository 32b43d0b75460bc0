import type { Exec } from '../../../core/exec.js';
import { LONG_RUN_MS, succeeded } from './git-run.js';

// tar keeps symlinks as symlinks (it never follows one without -h) and records each file's mode; extraction with -p
// restores the modes, and GNU tar sets a symlink that points out of the tree only after every file is extracted, so no
// member is written through one.

/** Archives `names` (relative to `dir`, none a directory to recurse into) into `archive`, an absolute path. */
export async function tarNames(exec: Exec, dir: string, names: string[], archive: string): Promise<void> {
  // Read from stdin one NUL-ended name at a time; "./" before each keeps a name starting with `-` from being an option.
  const list = names.map((n) => `./${n}\0`).join('');
  const r = await exec('tar', ['-c', '-f', archive, '-C', dir, '--null', '--no-recursion', '-T', '-'], {
    input: list,
    timeoutMs: LONG_RUN_MS,
  });
  succeeded('tar -c', r);
}

/** Archives the whole tree under `dir` into `archive`. */
export async function tarTree(exec: Exec, dir: string, archive: string): Promise<void> {
  succeeded('tar -c', await exec('tar', ['-c', '-f', archive, '-C', dir, '.'], { timeoutMs: LONG_RUN_MS }));
}

/** Extracts `archive` into `dir`, modes as archived. */
export async function untar(exec: Exec, archive: string, dir: string): Promise<void> {
  const r = await exec('tar', ['-x', '-p', '--no-same-owner', '-f', archive, '-C', dir], { timeoutMs: LONG_RUN_MS });
  succeeded('tar -x', r);
}
