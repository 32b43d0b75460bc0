import type { Exec, ExecResult } from '../../core/exec.js';
import { LeoError } from '../../core/leo-error.js';
import type { CommitResult, DiscardResult, PullRequestResult, PushResult } from '../../wire/changes.js';
import { refProblem } from '../../wire/git-args.js';
import { GIT_FLAGS } from '../git-flags.js';
import type { WorkspaceChanges } from '../workspace-changes.js';
import { compareUrl, remoteRepo } from './forge-url.js';
import { maskSecrets } from './mask-secrets.js';

type Answer<T> = Omit<T, 'agent'>;

/** git (or gh) ran and refused: its own words, in full, secrets in URLs masked. */
const failed = (what: string, r: ExecResult, code = 'git_failed') =>
  new LeoError(409, `${what} failed: ${maskSecrets((r.stderr || r.stdout).trim()) || `exit code ${r.code}`}`, code);

/** A name git gave back that a command line must not take as an option or a bad ref. */
function checkedRef(what: string, ref: string): string {
  const problem = refProblem(ref);
  if (problem) throw new LeoError(409, `the ${what} "${ref}" ${problem}`, 'bad_ref');
  return ref;
}

/**
 * The writes on an agent workspace's changes (issue 33), with git through the exec seam. Every path given has been
 * checked by the route (inside the workspace, symlinks followed) and reaches git after `--` with literal pathspecs;
 * every ref or remote name is checked against git's ref rules (no leading `-`) before it reaches a command line.
 * git runs with the daemon's environment (its credential helpers, ssh agent, `gh`), never prompting.
 */
export class ChangeActions {
  constructor(
    private readonly exec: Exec,
    private readonly changes: WorkspaceChanges,
    private readonly env: NodeJS.ProcessEnv,
  ) {}

  /**
   * Stages `paths` (all the workspace's changes when absent), then commits them alone as the repository's configured
   * identity. All is the workspace's folder: below its repository's top, what other agents changed elsewhere stays out.
   */
  async commit(ws: string, message: string, paths?: readonly string[]): Promise<Answer<CommitResult>> {
    const only = ['--', ...(paths ?? ['.'])];
    const add = await this.git(ws, ['add', '-A', ...only]);
    if (add.code !== 0) throw failed('git add', add);
    const staged = await this.git(ws, ['diff', '--cached', '--quiet', ...only]);
    if (staged.code === 0) throw new LeoError(409, 'there is nothing to commit', 'nothing_to_commit');
    const commit = await this.git(
      ws,
      // --only leaves whatever else the agent staged (elsewhere in the repository too) staged and out of this commit.
      ['commit', `--message=${message}`, '--only', ...only],
      120_000,
    );
    if (commit.code !== 0) throw failed('git commit', commit);
    const head = await this.git(ws, ['rev-parse', '--verify', 'HEAD']);
    return { commit: head.stdout.trim(), branch: await this.branch(ws), summary: commit.stdout.trim() };
  }

  /** Puts tracked files under `paths` back as HEAD has them and deletes the untracked ones. */
  async discard(ws: string, paths: readonly string[]): Promise<Answer<DiscardResult>> {
    const { files } = await this.changes.status(ws, paths);
    const restored = files
      .filter((f) => f.kind !== 'untracked')
      .flatMap((f) => [f.path, ...(f.orig_path ? [f.orig_path] : [])]);
    const removed = files.filter((f) => f.kind === 'untracked').map((f) => f.path);
    if (restored.length) {
      const r = await this.git(ws, ['restore', '--source=HEAD', '--staged', '--worktree', '--', ...restored]);
      if (r.code !== 0) throw failed('git restore', r);
    }
    if (removed.length) {
      const r = await this.git(ws, ['clean', '--force', '--quiet', '--', ...removed]);
      if (r.code !== 0) throw failed('git clean', r);
    }
    return { restored, removed };
  }

  /** The current branch to its upstream, or to `origin` under its own name, setting the upstream (`-u`). */
  async push(ws: string): Promise<Answer<PushResult>> {
    const branch = await this.requireBranch(ws);
    const upstream = await this.upstream(ws, branch);
    const remote = upstream?.remote ?? 'origin';
    if (!upstream && (await this.git(ws, ['remote', 'get-url', '--', remote])).code !== 0)
      throw new LeoError(409, `${branch} has no upstream and the repository has no remote "origin"`, 'no_remote');
    const target = upstream?.merge ?? `refs/heads/${branch}`;
    const r = await this.git(
      ws,
      ['push', ...(upstream ? [] : ['--set-upstream']), '--', remote, `refs/heads/${branch}:${target}`],
      120_000,
    );
    if (r.code !== 0) throw failed('git push', r, 'push_failed');
    return {
      branch,
      remote,
      remote_branch: target.replace(/^refs\/heads\//, ''),
      set_upstream: !upstream,
      output: maskSecrets(`${r.stdout}${r.stderr}`.trim()),
    };
  }

  /**
   * Opens a pull request from the current branch with `gh` when it is installed and logged in to the remote's host;
   * otherwise answers the forge's compare page for it. `base` has been checked by the route.
   */
  async pullRequest(
    ws: string,
    draft: { title: string; body: string; base?: string | undefined },
  ): Promise<Answer<PullRequestResult>> {
    const head = await this.requireBranch(ws);
    const base = draft.base ?? null;
    const remoteName = (await this.upstream(ws, head))?.remote ?? 'origin';
    const url = await this.git(ws, ['remote', 'get-url', '--', remoteName]);
    if (url.code !== 0) throw new LeoError(409, `the repository has no remote "${remoteName}"`, 'no_remote');
    const remote = remoteRepo(url.stdout.trim());
    if (remote && (await this.ghLoggedIn(ws, remote.host))) {
      const args = ['pr', 'create', `--repo=${remote.host}/${remote.repo}`, `--head=${head}`];
      args.push(`--title=${draft.title}`, `--body=${draft.body}`, ...(base ? [`--base=${base}`] : []));
      const r = await this.gh(ws, args);
      if (r.code !== 0) throw failed('gh pr create', r, 'pull_request_failed');
      const opened = r.stdout.trim().split('\n').pop() ?? '';
      return { via: 'gh', url: opened, head, base };
    }
    const page = remote && compareUrl(remote, { head, base, title: draft.title, body: draft.body });
    if (!page)
      throw new LeoError(
        409,
        `the remote "${remoteName}" (${maskSecrets(url.stdout.trim())}) is on no forge Leo knows, and gh is not logged in to it`,
        'no_forge',
      );
    return { via: 'compare', url: page, head, base };
  }

  private async branch(ws: string): Promise<string | null> {
    const r = await this.git(ws, ['symbolic-ref', '--quiet', '--short', 'HEAD']);
    return r.code === 0 ? r.stdout.trim() : null;
  }

  private async requireBranch(ws: string): Promise<string> {
    const branch = await this.branch(ws);
    if (branch === null) throw new LeoError(409, 'HEAD is detached: check out a branch first', 'detached_head');
    return checkedRef('branch', branch);
  }

  /** The branch's configured upstream (`branch.<b>.remote` and `.merge`), or null; a local one (`.`) is none. */
  private async upstream(ws: string, branch: string): Promise<{ remote: string; merge: string } | null> {
    const get = async (key: string) => {
      const r = await this.git(ws, ['config', '--get', `branch.${branch}.${key}`]);
      return r.code === 0 ? r.stdout.trim() : null;
    };
    const remote = await get('remote');
    const merge = await get('merge');
    if (!remote || !merge || remote === '.') return null;
    if (!merge.startsWith('refs/heads/'))
      throw new LeoError(409, `the upstream of ${branch} is no branch (${merge})`, 'bad_ref');
    return { remote: checkedRef('remote', remote), merge: checkedRef('upstream', merge) };
  }

  private async ghLoggedIn(ws: string, host: string): Promise<boolean> {
    const r = await this.gh(ws, ['auth', 'status', `--hostname=${host}`]).catch(() => null);
    return r?.code === 0;
  }

  private gh(cwd: string, args: string[]): Promise<ExecResult> {
    const env = { ...this.env, GH_PROMPT_DISABLED: '1', GH_NO_UPDATE_NOTIFIER: '1', NO_COLOR: '1' };
    return this.exec('gh', args, { cwd, env, timeoutMs: 60_000 });
  }

  private git(cwd: string, args: string[], timeoutMs = 15_000): Promise<ExecResult> {
    const env = { ...this.env, GIT_TERMINAL_PROMPT: '0' };
    return this.exec('git', [...GIT_FLAGS, ...args], { cwd, env, timeoutMs });
  }
}
