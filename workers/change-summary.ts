/**
 * The change summary of agents' workspaces (issue 33), on a pool thread: one `git status` each, and only when what it
 * shows moved since the last look, `git diff --numstat HEAD` and the untracked files' lines. The parsing and the
 * decisions are pure code in src/review/summary/.
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { realExec, type Exec, type ExecResult } from '../src/core/exec.js';
import { countLines, parseNumstat, parseStatus } from '../src/review/summary/summary-parse.js';
import {
  UNTRACKED_LINES,
  type SummaryInput,
  type SummaryOutput,
  type WorkspaceSummary,
} from '../src/review/summary/summary-task.js';
import { GIT_FLAGS } from '../src/review/git-flags.js';

/** Workspaces looked at together: git is mostly waiting on the disk and on its start. */
const PARALLEL = 4;
/** Changed files whose size and mtime go into the signature; past them an edit shows once git's listing moves. */
const STAT_FILES = 2000;

export async function changeSummaries(input: SummaryInput): Promise<SummaryOutput> {
  const results: WorkspaceSummary[] = [];
  const queue = [...input.workspaces];
  await Promise.all(
    Array.from({ length: Math.min(PARALLEL, queue.length) }, async () => {
      for (let w = queue.shift(); w; w = queue.shift()) results.push(await summarize(realExec, w.path, w.signature));
    }),
  );
  return { results };
}

/** One workspace's look, over any exec (tests hand it the real one). */
export async function summarize(exec: Exec, workspace: string, previous: string | null): Promise<WorkspaceSummary> {
  const started = performance.now();
  const done = (signature: string | null, summary: WorkspaceSummary['summary']): WorkspaceSummary => ({
    path: workspace,
    signature,
    summary,
    ms: Math.round(performance.now() - started),
  });
  const git = (args: string[]) =>
    exec('git', [...GIT_FLAGS, ...args], {
      cwd: workspace,
      // Read-only, as the changes route reads: no index refresh, so an agent's own git never meets our lock.
      env: { ...process.env, GIT_OPTIONAL_LOCKS: '0', GIT_TERMINAL_PROMPT: '0' },
      timeoutMs: 15_000,
    });
  // Taken before git looks, so a `git init` between the two shows as a move at the next look.
  const where = await discovery(workspace);
  if (previous === where) return done(where, 'same');
  // A missing folder cannot be git's cwd at all (the exec rejects): no summary, like a folder git refuses.
  // The workspace's own folder, as the changes route lists it (below its repository's top: a package of a monorepo).
  const status = await git(['status', '--porcelain=v2', '--branch', '-z', '--untracked-files=all', '--', '.']).catch(
    () => null,
  );
  if (!status) return done(where, null);
  if (status.code !== 0 && !status.truncated) return done(NOT_A_REPOSITORY.test(status.stderr) ? where : null, null);
  // Past what the exec takes: the whole records before the cut, and no signature, so the next look counts again.
  const out = status.truncated ? status.stdout.slice(0, status.stdout.lastIndexOf('\0') + 1) : status.stdout;
  const figures = parseStatus(out, await prefixOf(git, workspace, where));
  const signature = status.truncated ? null : await signatureOf(workspace, out, figures.paths);
  if (signature !== null && signature === previous) return done(signature, 'same');

  // Before the first commit everything is measured against the empty tree.
  const base = figures.head ?? (await git(['hash-object', '-t', 'tree', '/dev/null'])).stdout.trim();
  const diff = await git(['diff', '--numstat', '-z', '--no-ext-diff', '--no-textconv', '--relative', base]);
  const lines = diff.code === 0 ? parseNumstat(diff.stdout) : { insertions: 0, deletions: 0 };
  return done(signature, {
    files: figures.paths.length,
    insertions: lines.insertions + (await untrackedLines(workspace, figures.untracked)),
    deletions: lines.deletions,
    ahead: figures.ahead,
    behind: figures.behind,
  });
}

/** Each workspace's place in its repository, kept while git's discovery of it (`discovery`) stays the same. */
const prefixes = new Map<string, { where: string; prefix: string }>();

/**
 * Where the workspace lies in its repository ('' at the top, else `dir/sub/`), which git's porcelain paths start
 * with. Asked of git once, and again only when a `.git` on the way up moved.
 */
async function prefixOf(git: (args: string[]) => Promise<ExecResult>, workspace: string, where: string) {
  const known = prefixes.get(workspace);
  if (known?.where === where) return known.prefix;
  const r = await git(['rev-parse', '--show-prefix']);
  const prefix = r.code === 0 ? r.stdout.replace(/\n$/, '') : '';
  prefixes.set(workspace, { where, prefix });
  return prefix;
}

/** What git says of a folder in no repository (its fatal line names the folder too). */
const NOT_A_REPOSITORY = /not a git repository/i;

/**
 * Where git would look for the repository of `workspace`: whether the folder is there, and each `.git` from it up to
 * the root, by inode and mtime. A folder in no repository stays so until this moves (a `git init` or a clone in it or
 * above it, the folder made), so its look is these stats and no git start: a hundred agents in plain folders were a
 * hundred git processes a second, which took the soak from 100 to ~60 sends/s. The signature of such a folder.
 */
async function discovery(workspace: string): Promise<string> {
  const seen = [(await fs.stat(workspace).catch(() => null))?.isDirectory() ? 'folder' : 'missing'];
  for (let dir = path.resolve(workspace); ; dir = path.dirname(dir)) {
    const git = await fs.lstat(path.join(dir, '.git')).catch(() => null);
    if (git) seen.push(`${dir}:${git.ino}:${git.mtimeMs}`);
    if (path.dirname(dir) === dir) break;
  }
  return `no repository\0${seen.join('\0')}`;
}

/** The status's output, and each changed file's size and mtime: an edit to a file already changed moves only those. */
async function signatureOf(workspace: string, status: string, paths: readonly string[]): Promise<string> {
  const hash = createHash('sha1').update(status);
  for (const rel of paths.slice(0, STAT_FILES)) {
    const s = await fs.lstat(path.join(workspace, rel)).catch(() => null);
    hash.update(s ? `\0${s.size}:${s.mtimeMs}` : '\0-');
  }
  return hash.digest('hex');
}

/** The untracked files' lines, within UNTRACKED_LINES; a file past the caps or unreadable counts none. */
async function untrackedLines(workspace: string, untracked: readonly string[]): Promise<number> {
  let lines = 0;
  let budget = UNTRACKED_LINES.totalBytes;
  for (const rel of untracked.slice(0, UNTRACKED_LINES.files)) {
    const file = path.join(workspace, rel);
    const s = await fs.lstat(file).catch(() => null);
    // A symlink counts no lines: its target may lie outside the tree.
    if (!s?.isFile() || s.size > UNTRACKED_LINES.fileBytes || s.size > budget) continue;
    budget -= s.size;
    const bytes = await fs.readFile(file).catch(() => null);
    if (bytes) lines += countLines(bytes);
  }
  return lines;
}
