import path from 'node:path';
import type { ChangedFile, ChangeKind } from '../wire/changes.js';

/** Fields before the path in each porcelain v2 record type (git-status(1), "Porcelain Format Version 2"). */
const FIELDS_BEFORE_PATH: Record<string, number> = { '1': 8, '2': 9, u: 10 };

function kindOf(xy: string, type: string): ChangeKind {
  if (type === 'u') return 'unmerged';
  if (type === '2') return xy.includes('C') ? 'copied' : 'renamed';
  if (xy.includes('D')) return 'deleted';
  if (xy.includes('A')) return 'added';
  if (xy.includes('T')) return 'type_changed';
  return 'modified';
}

/**
 * A path git's porcelain printed from the repository's top, made relative to the workspace at `prefix` (what `git
 * rev-parse --show-prefix` says there: '' at the top, else `dir/sub/`). One outside it (a rename's original) climbs
 * out with `..`.
 */
export function fromPrefix(prefix: string, p: string): string {
  return p.startsWith(prefix) ? p.slice(prefix.length) : path.posix.relative(`/${prefix}`, `/${p}`);
}

/**
 * Parses `git status --porcelain=v2 -z` into changed files, at most `max` of them (`truncated` when there were more),
 * their paths relative to the workspace at `prefix` (porcelain paths are always from the repository's top). With -z
 * each record ends in NUL and paths are verbatim (no quoting); a rename's original path is the next record. Headers
 * (`#`) and ignored files (`!`) are skipped.
 */
export function parsePorcelainV2(out: string, max: number, prefix = ''): { files: ChangedFile[]; truncated: boolean } {
  const records = out.split('\0');
  const files: ChangedFile[] = [];
  for (let i = 0; i < records.length; i++) {
    const rec = records[i]!;
    if (!rec) continue;
    const type = rec[0]!;
    let file: ChangedFile | null = null;
    if (type === '?') file = { path: fromPrefix(prefix, rec.slice(2)), kind: 'untracked', index: '?', worktree: '?' };
    else if (type in FIELDS_BEFORE_PATH) {
      const n = FIELDS_BEFORE_PATH[type]!;
      const parts = rec.split(' ');
      const xy = parts[1] ?? '..';
      file = {
        path: fromPrefix(prefix, parts.slice(n).join(' ')),
        kind: kindOf(xy, type),
        index: xy[0] ?? '.',
        worktree: xy[1] ?? '.',
      };
      if (type === '2') file.orig_path = fromPrefix(prefix, records[++i] ?? '');
    }
    if (!file) continue;
    if (files.length === max) return { files, truncated: true };
    files.push(file);
  }
  return { files, truncated: false };
}
