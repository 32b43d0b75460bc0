import path from 'node:path';
import { isBelow } from '../../core/path-inside.js';

/**
 * Pure facts of an agent's own git worktree (issue 33): its branch, where it goes, what git's worktree list says,
 * and whether taking it away would lose work. worktrees.ts runs git; this decides.
 */

/** The branch an agent's worktree works on. Agent names start with a letter or digit, so this is never an option. */
export const agentBranch = (agent: string): string => `leo/${agent}`;

/**
 * Where the worktree of `agent` on the repository at `top` goes: `<root>/<repository folder>/<agent>`, or the first
 * of `<agent>-2`, `<agent>-3`, … that is free when a kept or renamed agent's tree holds that place.
 */
export function worktreePlace(root: string, top: string, agent: string, taken: (dir: string) => boolean): string {
  const dir = path.join(root, path.basename(top));
  for (let n = 1; ; n++) {
    const place = path.join(dir, n === 1 ? agent : `${agent}-${n}`);
    if (!taken(place)) return place;
  }
}

/** Whether `dir` lies in Leo's worktrees folder `root`: only what Leo made there does it take away again. */
export const inWorktreesFolder = (root: string, dir: string): boolean => isBelow(root, dir);

export interface ListedWorktree {
  path: string;
  /** `refs/heads/…`, or null for a detached HEAD. */
  branch: string | null;
}

/** `git worktree list --porcelain -z`: one record per tree, `key value` fields, each record ended by an empty one. */
export function parseWorktreeList(out: string): ListedWorktree[] {
  const trees: ListedWorktree[] = [];
  let current: ListedWorktree | null = null;
  for (const field of out.split('\0')) {
    if (field.startsWith('worktree ')) {
      current = { path: field.slice('worktree '.length), branch: null };
      trees.push(current);
    } else if (field.startsWith('branch ') && current) current.branch = field.slice('branch '.length);
  }
  return trees;
}

/** What taking a worktree away would lose: files not committed, commits found on no other branch, local or remote. */
export interface WorkAtStake {
  uncommitted: number;
  unpushed: number;
}

/** Why the worktree stays, as its owner reads it, or null when nothing in it would be lost. */
export function keepReason(stake: WorkAtStake): string | null {
  const parts = [
    stake.uncommitted ? plural(stake.uncommitted, 'uncommitted file') : '',
    stake.unpushed ? `${plural(stake.unpushed, 'commit')} on no other branch (not pushed)` : '',
  ].filter(Boolean);
  return parts.length ? parts.join(' and ') : null;
}

/** Entries of `git status --porcelain=v2 -z`: a rename's or copy's (`2 …`) is followed by its original path. */
export function countStatusEntries(out: string): number {
  const fields = out.split('\0');
  let n = 0;
  for (let i = 0; i < fields.length; i++) {
    if (!fields[i]) continue;
    n++;
    if (fields[i]!.startsWith('2 ')) i++;
  }
  return n;
}

const plural = (n: number, noun: string): string => `${n} ${noun}${n === 1 ? '' : 's'}`;
