/**
 * A unified diff (git's, untrusted text) as rows to render as text nodes: file headers, hunk headers, context,
 * additions and deletions, each with its line numbers. Pure, so the phone's unified view and the wide screen's split
 * view read the same rows.
 */
export type DiffRow =
  | { kind: 'meta' | 'hunk'; text: string }
  | { kind: 'ctx'; text: string; old: number; new: number }
  | { kind: 'del'; text: string; old: number }
  | { kind: 'add'; text: string; new: number };

export function parseUnifiedDiff(diff: string): DiffRow[] {
  const rows: DiffRow[] = [];
  let oldNo = 0;
  let newNo = 0;
  let inHunk = false;
  const lines = diff.split('\n');
  if (lines.at(-1) === '') lines.pop();
  for (const line of lines) {
    const hunk = /^@@ -(\d+)(?:,\d+)? \+(\d+)(?:,\d+)? @@/.exec(line);
    if (hunk) {
      oldNo = Number(hunk[1]);
      newNo = Number(hunk[2]);
      inHunk = true;
      rows.push({ kind: 'hunk', text: line });
    } else if (inHunk && line.startsWith('+')) rows.push({ kind: 'add', text: line.slice(1), new: newNo++ });
    else if (inHunk && line.startsWith('-')) rows.push({ kind: 'del', text: line.slice(1), old: oldNo++ });
    else if (inHunk && line.startsWith(' '))
      rows.push({ kind: 'ctx', text: line.slice(1), old: oldNo++, new: newNo++ });
    else {
      // `\ No newline at end of file` stays inside its hunk; `diff --git` starts the next file's headers.
      if (!line.startsWith('\\')) inHunk = false;
      rows.push({ kind: 'meta', text: line });
    }
  }
  return rows;
}

/** One line of the split view: the old side on the left, the new on the right (either may be empty). */
export type SplitRow =
  | { kind: 'meta' | 'hunk'; text: string }
  | {
      kind: 'pair';
      left: { no: number; text: string; del: boolean } | null;
      right: { no: number; text: string; add: boolean } | null;
    };

/** Pairs each run of deletions with the additions that follow it, line by line, as side-by-side diffs do. */
export function splitRows(rows: DiffRow[]): SplitRow[] {
  const out: SplitRow[] = [];
  let dels: Extract<DiffRow, { kind: 'del' }>[] = [];
  let adds: Extract<DiffRow, { kind: 'add' }>[] = [];
  const flush = () => {
    for (let i = 0; i < Math.max(dels.length, adds.length); i++) {
      const d = dels[i];
      const a = adds[i];
      out.push({
        kind: 'pair',
        left: d ? { no: d.old, text: d.text, del: true } : null,
        right: a ? { no: a.new, text: a.text, add: true } : null,
      });
    }
    dels = [];
    adds = [];
  };
  for (const r of rows) {
    if (r.kind === 'del') {
      if (adds.length) flush();
      dels.push(r);
    } else if (r.kind === 'add') adds.push(r);
    else {
      flush();
      if (r.kind === 'ctx')
        out.push({
          kind: 'pair',
          left: { no: r.old, text: r.text, del: false },
          right: { no: r.new, text: r.text, add: false },
        });
      else out.push(r);
    }
  }
  flush();
  return out;
}
