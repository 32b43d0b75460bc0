import fs from 'node:fs';
import path from 'node:path';
import type { Exec } from '../../core/exec.js';
import type { WorktreeLeft } from '../../wire/agent-bodies.js';
import { refProblem } from '../../wire/git-args.js';
import { AgentError } from '../agent-error.js';
import {
  agentBranch,
  countStatusEntries,
  inWorktreesFolder,
  keepReason,
  parseWorktreeList,
  worktreePlace,
  type WorkAtStake,
} from './worktree-plan.js';

/** A worktree made (or taken back) for a spawn: the agent's workspace in it, its branch, and how to undo it. */
export interface MadeWorktree {
  workspace: string;
  branch: string;
  /** Takes away what this spawn made, when the spawn fails after it: a tree taken back stays as it was. */
  undo(): Promise<void>;
}

export interface MakeWorktree {
  /** The template's or the spawn's workspace: a repository, or a folder inside one. */
  repository: string;
  agent: string;
  base?: string | undefined;
  /** Whether some agent already works in `dir` (or below it): two agents never share a tree. */
  inUse(dir: string): boolean;
}

/**
 * Each worktree agent's own `git worktree` (issue 33), under Leo's folder `root` (`$LEO_HOME/worktrees`), run through
 * the exec seam. Every name and ref reaches git where it cannot be read as an option: refs are checked by refProblem
 * and resolved to a commit id before `worktree add` (which hands its start point on to `git branch`, past any `--`),
 * paths are absolute, branch names start with `leo/`.
 */
export class Worktrees {
  constructor(
    private readonly exec: Exec,
    private readonly root: string,
  ) {}

  async make(o: MakeWorktree): Promise<MadeWorktree> {
    fs.mkdirSync(this.root, { recursive: true });
    const root = fs.realpathSync(this.root);
    const why = o.base === undefined ? null : refProblem(o.base);
    if (why) throw new AgentError('invalid', `base ${why}`, 'base');
    const at = await this.git(o.repository, ['rev-parse', '--show-toplevel', '--show-prefix']);
    if (at.code !== 0)
      throw new AgentError('invalid', `worktree: ${o.repository} is not in a git repository with a work tree`);
    const [top = '', prefix = ''] = at.stdout.split('\n');
    const branch = agentBranch(o.agent);
    const inside = (tree: string) => ({ workspace: path.join(tree, prefix), branch });
    const trees = parseWorktreeList(await this.ok(top, ['worktree', 'list', '--porcelain', '-z'], 'worktree list'));
    const holder = trees.find((t) => t.branch === `refs/heads/${branch}`);
    if (holder) {
      // A former agent's tree kept at its removal (it had work in it): the agent of that name takes it back.
      if (inWorktreesFolder(root, holder.path) && !o.inUse(holder.path))
        return { ...inside(holder.path), undo: async () => {} };
      throw new AgentError('conflict', `the branch ${branch} is checked out at ${holder.path}`, 'worktree');
    }
    const place = worktreePlace(root, top, o.agent, (dir) => fs.existsSync(dir) || o.inUse(dir));
    fs.mkdirSync(path.dirname(place), { recursive: true });
    const reused = await this.hasBranch(top, branch);
    // A kept branch (its agent removed with commits found nowhere else) is checked out again, `base` or not.
    const add = reused
      ? ['worktree', 'add', '--quiet', '--', place, branch]
      : ['worktree', 'add', '--quiet', '--no-track', '-b', branch, '--', place, await this.startPoint(top, o.base)];
    await this.ok(top, add, 'worktree add');
    const made = inside(place);
    fs.mkdirSync(made.workspace, { recursive: true });
    return {
      ...made,
      undo: async () => {
        await this.git(top, ['worktree', 'remove', '--force', '--', place]);
        if (!reused) await this.git(top, ['branch', '-D', '--', branch]);
      },
    };
  }

  /**
   * Takes a removed agent's tree away when nothing in it would be lost (or with `force`), and its branch when no
   * commit of it would be lost; says what stays and why. Undefined for a workspace that is no worktree Leo made (a
   * plain folder, a repository a move brought in, a tree already gone).
   */
  async leave(workspace: string, branch: string, force: boolean): Promise<WorktreeLeft | undefined> {
    const root = this.realRoot();
    if (!root || !this.madeHere(root, workspace)) return undefined;
    const dirs = await this.git(workspace, [
      'rev-parse',
      '--path-format=absolute',
      '--show-toplevel',
      '--git-common-dir',
      '--absolute-git-dir',
    ]);
    const [top = '', common = '', gitDir = ''] = dirs.stdout.split('\n');
    if (dirs.code !== 0 || common === gitDir || !inWorktreesFolder(root, top)) return undefined;
    const left: WorktreeLeft = { path: top, branch, removed: false, branch_removed: false };
    let facts: { stake: WorkAtStake; hasBranch: boolean };
    try {
      facts = await this.workAtStake(top, branch);
    } catch (err) {
      // The agent goes all the same; its tree stays, with git's reason.
      return { ...left, kept: (err as Error).message };
    }
    const { stake, hasBranch } = facts;
    const why = keepReason(stake);
    // After the removal `force` is out of reach (the agent is gone): what the owner can still do is take it back.
    if (why && !force) return { ...left, kept: `${why}; an agent spawned with the same name takes the tree back` };
    const removed = await this.git(top, ['worktree', 'remove', ...(force ? ['--force'] : []), '--', top]);
    if (removed.code !== 0) return { ...left, kept: `git worktree remove failed: ${removed.stderr.trim()}` };
    if (!hasBranch) return { ...left, removed: true };
    const lost = keepReason({ uncommitted: 0, unpushed: stake.unpushed });
    if (lost) return { ...left, removed: true, kept: `the branch ${branch} stays: ${lost}` };
    const gone = await this.exec('git', ['--git-dir', common, 'branch', '-D', '--', branch]);
    if (gone.code !== 0)
      return { ...left, removed: true, kept: `git branch -D ${branch} failed: ${gone.stderr.trim()}` };
    return { ...left, removed: true, branch_removed: true };
  }

  /**
   * The branch after agent `from` of this workspace became `to`: `leo/<from>` becomes `leo/<to>` while it has no
   * upstream; a pushed branch keeps its name (the remote and any pull request know it by it). `note` says why it stayed.
   */
  async renameBranch(
    workspace: string,
    branch: string,
    from: string,
    to: string,
  ): Promise<{ branch: string; note: string | null }> {
    const keep = (why: string) => ({ branch, note: `The branch ${branch} keeps its name: ${why}.` });
    const root = this.realRoot();
    if (branch !== agentBranch(from) || !root || !this.madeHere(root, workspace)) return { branch, note: null };
    const next = agentBranch(to);
    const upstream = await this.git(workspace, ['for-each-ref', '--format=%(upstream:short)', `refs/heads/${branch}`]);
    if (upstream.code !== 0) return keep(`git for-each-ref failed: ${upstream.stderr.trim()}`);
    if (upstream.stdout.trim()) return keep(`it is pushed (${upstream.stdout.trim()})`);
    if (await this.hasBranch(workspace, next)) return keep(`${next} already exists`);
    const moved = await this.git(workspace, ['branch', '-m', '--', branch, next]);
    return moved.code === 0 ? { branch: next, note: null } : keep(`git branch -m failed: ${moved.stderr.trim()}`);
  }

  /** What taking the tree at `top` away would lose, and whether the agent's branch still exists. */
  private async workAtStake(top: string, branch: string): Promise<{ stake: WorkAtStake; hasBranch: boolean }> {
    const status = await this.ok(top, ['status', '--porcelain=v2', '-z', '--untracked-files=all'], 'status');
    const hasBranch = await this.hasBranch(top, branch);
    const tips = ['HEAD', ...(hasBranch ? [`refs/heads/${branch}`] : [])];
    // Commits only the tree's HEAD or the agent's branch reach: pushed ones are on a remote-tracking branch, merged
    // ones on another local branch.
    const unpushed = await this.ok(
      top,
      ['rev-list', '--count', ...tips, '--not', `--exclude=${branch}`, '--branches', '--remotes'],
      'rev-list',
    );
    return { stake: { uncommitted: countStatusEntries(status), unpushed: Number(unpushed.trim()) }, hasBranch };
  }

  /** The worktrees folder as git names paths (symlinks resolved), or null before the first worktree was made. */
  private realRoot(): string | null {
    return fs.existsSync(this.root) ? fs.realpathSync(this.root) : null;
  }

  /** Whether `workspace` exists in Leo's worktrees folder (real path `root`): only there does Leo take trees away. */
  private madeHere(root: string, workspace: string): boolean {
    return fs.existsSync(workspace) && inWorktreesFolder(root, fs.realpathSync(workspace));
  }

  private async startPoint(top: string, base: string | undefined): Promise<string> {
    const r = await this.git(top, ['rev-parse', '-q', '--verify', '--end-of-options', `${base ?? 'HEAD'}^{commit}`]);
    if (r.code === 0) return r.stdout.trim();
    throw new AgentError(
      'invalid',
      base === undefined ? `${top} has no commit to branch from` : `base ${base} is no commit of ${top}`,
      'base',
    );
  }

  private async hasBranch(dir: string, branch: string): Promise<boolean> {
    return (await this.git(dir, ['rev-parse', '-q', '--verify', `refs/heads/${branch}`])).code === 0;
  }

  private git(dir: string, args: string[]) {
    return this.exec('git', ['-C', dir, ...args], { timeoutMs: 60_000 });
  }

  private async ok(dir: string, args: string[], what: string): Promise<string> {
    const r = await this.git(dir, args);
    if (r.code !== 0) throw new AgentError('conflict', `git ${what} failed in ${dir}: ${r.stderr.trim()}`, 'worktree');
    return r.stdout;
  }
}
