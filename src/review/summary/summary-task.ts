import type { ChangeSummary } from '../../wire/changes.js';

/** The pool's `changeSummaries` task: the workspaces due for a look, each with what its last look saw. */
export interface SummaryInput {
  workspaces: { path: string; signature: string | null }[];
}

/**
 * One workspace's answer. `signature` fingerprints what the status showed (its output, and each changed file's size
 * and mtime): the same as the one sent means nothing changed and `summary` is `'same'` (no diff was run). A folder in
 * no repository, or missing, has summary null and for signature where git would look for one (`'same'` until that
 * moves, and no git run); a look git failed otherwise, null.
 */
export interface WorkspaceSummary {
  path: string;
  signature: string | null;
  summary: ChangeSummary | null | 'same';
  /** What git took for this workspace, which spaces its next look (a huge tree is looked at less often). */
  ms: number;
}

export interface SummaryOutput {
  results: WorkspaceSummary[];
}

/**
 * The caps on counting untracked files' lines (beyond them a file counts as a file, with no lines): a build's output
 * left untracked must not make every look read megabytes.
 */
export const UNTRACKED_LINES = { files: 200, fileBytes: 1024 * 1024, totalBytes: 8 * 1024 * 1024 };
