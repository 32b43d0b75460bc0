import type { Exec, ExecResult } from '../core/exec.js';
import { LeoError } from '../core/leo-error.js';
import { CHANGES_MAX_FILES, DIFF_MAX_BYTES, type ChangedFile } from '../wire/changes.js';
import { GIT_FLAGS } from './git-flags.js';
import { parsePorcelainV2 } from './git-status.js';

/** git refused the workspace (not a repository, or one it cannot read): `reason` is git's first line. */
export class NotARepoError extends LeoError {
  constructor(reason: string) {
    super(409, `the workspace is not a git repository: ${reason}`, 'not_a_git_repo');
  }
}

/**
 * Reads an agent workspace's changes with git, through the exec seam (the daemon hands in the exec host's, so git
 * never forks from the daemon). Read-only: GIT_OPTIONAL_LOCKS=0 keeps status from refreshing the index (an agent's
 * own git would meet a held index.lock), and diffs run no external diff or textconv driver.
 */
export class WorkspaceChanges {
  constructor(
    private readonly exec: Exec,
    private readonly caps = { files: CHANGES_MAX_FILES, diffBytes: DIFF_MAX_BYTES },
  ) {}

  /**
   * The changed files under the workspace, or only those under `paths` (checked by the caller), relative to it. A
   * workspace below its repository's top (a package of a monorepo) lists its own folder: other agents may work in
   * the others.
   */
  async status(
    workspace: string,
    paths: readonly string[] = [],
  ): Promise<{ files: ChangedFile[]; truncated: boolean }> {
    const only = ['--', ...(paths.length ? paths : ['.'])];
    const [r, prefix] = await Promise.all([
      this.git(workspace, ['status', '--porcelain=v2', '-z', '--untracked-files=all', ...only]),
      this.prefix(workspace),
    ]);
    if (r.truncated) {
      // More than the exec seam takes: the whole records before the cut, said to be a part.
      const cut = r.stdout.slice(0, r.stdout.lastIndexOf('\0') + 1);
      return { files: parsePorcelainV2(cut, this.caps.files, prefix).files, truncated: true };
    }
    if (r.code !== 0) throw new NotARepoError(firstLine(r.stderr) || `git status exited with ${r.code}`);
    return parsePorcelainV2(r.stdout, this.caps.files, prefix);
  }

  /** Where the workspace lies in its repository: '' at the top, else `dir/sub/` (git's porcelain paths start so). */
  private async prefix(workspace: string): Promise<string> {
    const r = await this.git(workspace, ['rev-parse', '--show-prefix']);
    return r.code === 0 ? r.stdout.replace(/\n$/, '') : '';
  }

  /** The last commit's id and subject, or null before the first commit. */
  async head(workspace: string): Promise<{ commit: string; subject: string } | null> {
    const r = await this.git(workspace, ['log', '-1', '--no-show-signature', '--format=%H%x00%s', 'HEAD', '--']);
    if (r.code !== 0) return null;
    const [commit = '', subject = ''] = r.stdout.trim().split('\0');
    return commit ? { commit, subject } : null;
  }

  /**
   * `rel`'s unified diff against HEAD, or for a file git does not track a new-file diff (`git diff --no-index
   * /dev/null <file>`, which exits 1 when the files differ). The caller has checked that `rel` stays inside.
   */
  async diff(workspace: string, rel: string): Promise<{ diff: string; truncated: boolean }> {
    const flags = ['--no-color', '--no-ext-diff', '--no-textconv'];
    // --relative: the diff's headers name the file as the workspace does, below its repository's top too.
    const tracked = await this.git(workspace, ['diff', ...flags, '--relative', 'HEAD', '--', rel]);
    // A diff longer than the exec seam takes is cut here as any long diff is.
    if (tracked.truncated) return { ...cap(tracked.stdout, this.caps.diffBytes), truncated: true };
    if (tracked.code !== 0)
      throw new NotARepoError(firstLine(tracked.stderr) || `git diff exited with ${tracked.code}`);
    let diff = tracked.stdout;
    if (!diff) {
      const others = await this.git(workspace, ['ls-files', '-z', '--others', '--exclude-standard', '--', rel]);
      if (others.code === 0 && others.stdout.split('\0').includes(rel)) {
        const fresh = await this.git(workspace, ['diff', ...flags, '--no-index', '--', '/dev/null', rel]);
        if (fresh.truncated) return { ...cap(fresh.stdout, this.caps.diffBytes), truncated: true };
        if (fresh.code > 1) throw new Error(firstLine(fresh.stderr) || `git diff exited with ${fresh.code}`);
        diff = fresh.stdout;
      }
    }
    return cap(diff, this.caps.diffBytes);
  }

  private git(cwd: string, args: string[]): Promise<ExecResult> {
    return this.exec('git', [...GIT_FLAGS, ...args], {
      cwd,
      env: { ...process.env, GIT_OPTIONAL_LOCKS: '0', GIT_TERMINAL_PROMPT: '0' },
      timeoutMs: 15_000,
    });
  }
}

const firstLine = (s: string) => s.trim().split('\n')[0] ?? '';

/** At most `max` bytes, cut back to the last whole line so a cut diff never ends mid-character or mid-line. */
function cap(text: string, max: number): { diff: string; truncated: boolean } {
  const bytes = Buffer.from(text);
  if (bytes.length <= max) return { diff: text, truncated: false };
  const head = bytes.subarray(0, max);
  const nl = head.lastIndexOf(0x0a);
  return { diff: head.subarray(0, nl < 0 ? max : nl + 1).toString(), truncated: true };
}
