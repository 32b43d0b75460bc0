import { z } from 'zod';

/**
 * Wire shapes of the review API (GET /api/v1/agents/:name/changes[/diff]): pure zod, so Leo Web imports them.
 * `index` and `worktree` are git's two status letters (`.` unchanged); paths are relative to the workspace, and a
 * workspace below its repository's top lists its own folder only.
 */
export const ChangeKind = z.enum([
  'modified',
  'added',
  'deleted',
  'renamed',
  'copied',
  'type_changed',
  'unmerged',
  'untracked',
]);
export type ChangeKind = z.infer<typeof ChangeKind>;

export const ChangedFile = z.object({
  path: z.string(),
  /** The path before a rename or copy. */
  orig_path: z.string().optional(),
  kind: ChangeKind,
  index: z.string().length(1),
  worktree: z.string().length(1),
});
export type ChangedFile = z.infer<typeof ChangedFile>;

export const Changes = z.object({
  agent: z.string(),
  workspace: z.string(),
  files: z.array(ChangedFile),
  /** More files changed than the cap: `files` holds the first ones git listed. */
  truncated: z.boolean(),
  /**
   * The last commit (`HEAD`): its full id and subject line (the agent's text), what a pull request's title starts as;
   * null in a repository with no commit yet. Absent from daemons before it.
   */
  head: z.object({ commit: z.string(), subject: z.string() }).nullable().optional(),
});
export type Changes = z.infer<typeof Changes>;

export const FileDiff = z.object({
  agent: z.string(),
  path: z.string(),
  /** Unified diff against HEAD (a new-file diff for an untracked file); untrusted text. Empty: no difference. */
  diff: z.string(),
  /** The diff was longer than the cap and is cut at it. */
  truncated: z.boolean(),
});
export type FileDiff = z.infer<typeof FileDiff>;

/** How many files a status lists, and how many bytes of a diff are sent. */
export const CHANGES_MAX_FILES = 2000;
export const DIFF_MAX_BYTES = 1024 * 1024;

/**
 * The writes on an agent's changes (issue 33): commit, discard, push, pull request. Each refuses with 409
 * `agent_busy` while the agent is in a turn, unless `force`. Paths are checked as the diff route checks them.
 */
const Force = z.object({ force: z.boolean().optional() });

export const CommitBody = Force.extend({
  message: z
    .string()
    .trim()
    .min(1)
    .max(64 * 1024),
  /** Only these (staged as they stand, untracked ones added); absent: everything changed. */
  paths: z.array(z.string()).min(1).max(CHANGES_MAX_FILES).optional(),
});
export type CommitBody = z.infer<typeof CommitBody>;

export const CommitResult = z.object({
  agent: z.string(),
  /** The new commit's full id. */
  commit: z.string(),
  /** The branch it is on, null on a detached HEAD. */
  branch: z.string().nullable(),
  /** git's own summary of it (`[main 1a2b3c4] message` and the files-changed line). */
  summary: z.string(),
});
export type CommitResult = z.infer<typeof CommitResult>;

export const DiscardBody = Force.extend({ paths: z.array(z.string()).min(1).max(CHANGES_MAX_FILES) });
export type DiscardBody = z.infer<typeof DiscardBody>;

export const DiscardResult = z.object({
  agent: z.string(),
  /** Tracked files put back as HEAD has them (a file only staged as new is removed). */
  restored: z.array(z.string()),
  /** Untracked files deleted. */
  removed: z.array(z.string()),
});
export type DiscardResult = z.infer<typeof DiscardResult>;

export const PushBody = Force;
export type PushBody = z.infer<typeof PushBody>;

export const PushResult = z.object({
  agent: z.string(),
  branch: z.string(),
  remote: z.string(),
  /** The remote branch it went to. */
  remote_branch: z.string(),
  /** The upstream was set by this push (`-u`): the branch had none. */
  set_upstream: z.boolean(),
  /** What git said, URLs' secrets masked. */
  output: z.string(),
});
export type PushResult = z.infer<typeof PushResult>;

export const PullRequestBody = Force.extend({
  title: z.string().trim().min(1).max(1024),
  body: z
    .string()
    .max(64 * 1024)
    .default(''),
  /** The branch to merge into; absent: the forge's default branch. */
  base: z.string().optional(),
});
export type PullRequestBody = z.input<typeof PullRequestBody>;

export const PullRequestResult = z.object({
  agent: z.string(),
  /** `gh`: the pull request was opened and `url` is it; `compare`: `url` is the forge's page to open it on. */
  via: z.enum(['gh', 'compare']),
  url: z.string(),
  head: z.string(),
  base: z.string().nullable(),
});
export type PullRequestResult = z.infer<typeof PullRequestResult>;

/**
 * An agent's changes in figures (issue 33), for the fleet: what /api/v1/state's `changes` and the agent_changes event
 * carry. `files` counts what the changes route lists (untracked files one by one); `insertions` and `deletions` are
 * lines against HEAD, an untracked text file's lines counted as inserted. `ahead` and `behind` are commits against
 * the branch's upstream, null when it has none (a detached HEAD, a branch never pushed).
 */
const Count = z.number().int().nonnegative();
export const ChangeSummary = z.object({
  files: Count,
  insertions: Count,
  deletions: Count,
  ahead: Count.nullable(),
  behind: Count.nullable(),
});
export type ChangeSummary = z.infer<typeof ChangeSummary>;

/** The agent_changes event's data: the agent's summary as it now is; null when its workspace is no git repository. */
export const AgentChangesEvent = z.object({ agent: z.string(), changes: ChangeSummary.nullable() });
export type AgentChangesEvent = z.infer<typeof AgentChangesEvent>;
