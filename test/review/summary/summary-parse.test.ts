// The change summary's pure parts (issue 33): git's status headers and records, numstat's records, a new file's lines.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { countLines, parseNumstat, parseStatus, sameSummary } from '../../../src/review/summary/summary-parse.js';

const z = (...records: string[]) => records.map((r) => `${r}\0`).join('');

describe('change summary: parsing git', () => {
  it('reads the status: files (a rename once), untracked ones, HEAD and ahead/behind from branch.ab', () => {
    const out = z(
      '# branch.oid 1a2b3c',
      '# branch.head leo/den',
      '# branch.upstream origin/leo/den',
      '# branch.ab +2 -1',
      '1 .M N... 100644 100644 100644 aaa aaa src/app.ts',
      '2 R. N... 100644 100644 100644 bbb bbb R100 new name.ts',
      'old name.ts',
      '? notes/a b.md',
    );
    assert.deepEqual(parseStatus(out), {
      head: '1a2b3c',
      paths: ['src/app.ts', 'new name.ts', 'notes/a b.md'],
      untracked: ['notes/a b.md'],
      ahead: 2,
      behind: 1,
    });
  });

  it('without an upstream ahead and behind are null; before the first commit HEAD is null', () => {
    const s = parseStatus(z('# branch.oid (initial)', '# branch.head main', '? x'));
    assert.equal(s.head, null);
    assert.equal(s.ahead, null);
    assert.equal(s.behind, null);
    assert.deepEqual(parseStatus(''), { head: null, paths: [], untracked: [], ahead: null, behind: null });
  });

  it('sums numstat: a rename’s two paths are skipped as records, a binary file counts nothing', () => {
    const out = z('3\t1\tsrc/app.ts', '0\t0\t', 'old.ts', 'new.ts', '-\t-\timage.png', '10\t0\tdocs/a\tb.md');
    assert.deepEqual(parseNumstat(out), { insertions: 13, deletions: 1 });
    assert.deepEqual(parseNumstat(''), { insertions: 0, deletions: 0 });
  });

  it('counts a new file’s lines as git does: a last line without a newline counts, binary is none', () => {
    const b = (s: string) => Buffer.from(s);
    assert.equal(countLines(b('')), 0);
    assert.equal(countLines(b('one\ntwo\n')), 2);
    assert.equal(countLines(b('one\ntwo')), 2);
    assert.equal(countLines(b('\n')), 1);
    assert.equal(countLines(Buffer.from([0x61, 0x0a, 0x00, 0x0a])), 0);
  });

  it('compares summaries field by field; null and undefined differ (unknown is not "no repository")', () => {
    const s = { files: 1, insertions: 2, deletions: 0, ahead: null, behind: null };
    assert.ok(sameSummary(s, { ...s }));
    assert.ok(!sameSummary(s, { ...s, ahead: 0 }));
    assert.ok(sameSummary(null, null));
    assert.ok(!sameSummary(undefined, null));
    assert.ok(!sameSummary(s, null));
  });
});
