// render/diff.ts: git's unified diff as rows with line numbers, and the split view's pairing.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseUnifiedDiff, splitRows } from '../../src/web/render/diff.js';

const DIFF = `diff --git a/f b/f
--- a/f
+++ b/f
@@ -1,4 +1,4 @@
 keep
-old one
-old two
+new one
 tail
\\ No newline at end of file
@@ -10,2 +10,3 @@
 ten
+eleven
 twelve
`;

describe('diff rows', () => {
  it('numbers context, deletions and additions from each hunk header; headers and notes are meta', () => {
    const rows = parseUnifiedDiff(DIFF);
    assert.deepEqual(
      rows.slice(0, 4).map((r) => r.kind),
      ['meta', 'meta', 'meta', 'hunk'],
    );
    assert.deepEqual(rows[4], { kind: 'ctx', text: 'keep', old: 1, new: 1 });
    assert.deepEqual(rows[5], { kind: 'del', text: 'old one', old: 2 });
    assert.deepEqual(rows[7], { kind: 'add', text: 'new one', new: 2 });
    assert.deepEqual(rows[8], { kind: 'ctx', text: 'tail', old: 4, new: 3 });
    assert.equal(rows[9]!.kind, 'meta');
    assert.deepEqual(rows.at(-2), { kind: 'add', text: 'eleven', new: 11 });
    assert.deepEqual(rows.at(-1), { kind: 'ctx', text: 'twelve', old: 11, new: 12 });
  });

  it('pairs a run of deletions with the additions after it; the longer side leaves blanks', () => {
    const pairs = splitRows(parseUnifiedDiff(DIFF)).filter((r) => r.kind === 'pair');
    assert.deepEqual(pairs[1], {
      kind: 'pair',
      left: { no: 2, text: 'old one', del: true },
      right: { no: 2, text: 'new one', add: true },
    });
    assert.deepEqual(pairs[2], { kind: 'pair', left: { no: 3, text: 'old two', del: true }, right: null });
    const eleven = pairs.find((p) => p.kind === 'pair' && p.right?.text === 'eleven');
    assert.deepEqual(eleven, { kind: 'pair', left: null, right: { no: 11, text: 'eleven', add: true } });
  });
});
