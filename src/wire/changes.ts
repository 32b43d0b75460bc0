import { z } from 'zod';

/**
 * Wire shapes of the review API (GET /api/v1/agents/:name/changes[/diff]): pure zod, so Leo Web imports them.
 * `index` and `worktree` are git's two status letters (`.` unchanged); paths are relative to the workspace.
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
