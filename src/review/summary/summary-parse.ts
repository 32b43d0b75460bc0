import type { ChangeSummary } from '../../wire/changes.js';
import { parsePorcelainV2 } from '../git-status.js';

/** What one `git status --porcelain=v2 --branch -z --untracked-files=all` says, for the summary. */
export interface StatusFigures {
  /** HEAD's commit, or null before the first commit (`(initial)`). */
  head: string | null;
  /** Every changed path, as the changes route lists them (a rename by its new path). */
  paths: string[];
  /** The untracked ones among them, whose lines git's diff does not count. */
  untracked: string[];
  ahead: number | null;
  behind: number | null;
}

/**
 * Reads the status's files (relative to the workspace at `prefix`, as parsePorcelainV2 makes them) and its
 * `# branch.*` headers. `# branch.ab +A -B` is there only when the branch has an upstream that exists: without it
 * ahead and behind are null.
 */
export function parseStatus(out: string, prefix = ''): StatusFigures {
  const { files } = parsePorcelainV2(out, Number.MAX_SAFE_INTEGER, prefix);
  let head: string | null = null;
  let ahead: number | null = null;
  let behind: number | null = null;
  for (const rec of out.split('\0')) {
    if (rec.startsWith('# branch.oid ')) {
      const oid = rec.slice('# branch.oid '.length);
      head = oid === '(initial)' ? null : oid;
    }
    const ab = /^# branch\.ab \+(\d+) -(\d+)$/.exec(rec);
    if (ab) [ahead, behind] = [Number(ab[1]), Number(ab[2])];
  }
  return {
    head,
    paths: files.map((f) => f.path),
    untracked: files.filter((f) => f.kind === 'untracked').map((f) => f.path),
    ahead,
    behind,
  };
}

/**
 * Sums `git diff --numstat -z`: each record is `added<TAB>deleted<TAB>path`, or with an empty path a rename whose two
 * paths are the next two records. A binary file's counts are `-` and count nothing, as git's own totals do.
 */
export function parseNumstat(out: string): { insertions: number; deletions: number } {
  const records = out.split('\0');
  let insertions = 0;
  let deletions = 0;
  for (let i = 0; i < records.length; i++) {
    const m = /^(\d+|-)\t(\d+|-)\t(.*)$/s.exec(records[i]!);
    if (!m) continue;
    if (m[1] !== '-') insertions += Number(m[1]);
    if (m[2] !== '-') deletions += Number(m[2]);
    if (m[3] === '') i += 2;
  }
  return { insertions, deletions };
}

/**
 * The lines of a new file as git's diff would count them (a last line without a newline is a line), or 0 for what git
 * calls binary: a NUL in its first 8000 bytes.
 */
export function countLines(bytes: Uint8Array): number {
  if (bytes.subarray(0, 8000).includes(0)) return 0;
  let lines = 0;
  for (const b of bytes) if (b === 0x0a) lines++;
  return bytes.length > 0 && bytes[bytes.length - 1] !== 0x0a ? lines + 1 : lines;
}

export function sameSummary(a: ChangeSummary | null | undefined, b: ChangeSummary | null | undefined): boolean {
  if (!a || !b) return a === b;
  return (
    a.files === b.files &&
    a.insertions === b.insertions &&
    a.deletions === b.deletions &&
    a.ahead === b.ahead &&
    a.behind === b.behind
  );
}
