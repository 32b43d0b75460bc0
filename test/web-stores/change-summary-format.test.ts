import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { changeSummaryText } from '../../src/web/components/change-summary-format.js';

const summary = (files: number, insertions: number, deletions: number, ahead: number | null, behind = ahead) => ({
  files,
  insertions,
  deletions,
  ahead,
  behind,
});

describe("Leo Web: an agent card's change summary", () => {
  it('says files, lines and commits ahead, long and short', () => {
    assert.deepEqual(changeSummaryText(summary(3, 120, 4, 2, 0)), {
      long: '3 files, +120 −4, 2 commits ahead',
      short: '3 files +120 −4 ↑2',
    });
    assert.deepEqual(changeSummaryText(summary(1, 1, 0, null)), { long: '1 file, +1 −0', short: '1 file +1 −0' });
    assert.deepEqual(changeSummaryText(summary(0, 0, 0, 1, 0)), { long: '1 commit ahead', short: '↑1' });
    assert.deepEqual(changeSummaryText(summary(0, 0, 0, 0, 3)), { long: '3 commits behind', short: '↓3' });
    assert.deepEqual(changeSummaryText(summary(0, 0, 0, 2, 1)), { long: '2 ahead, 1 behind', short: '↑2 ↓1' });
    // A binary file changes no lines.
    assert.deepEqual(changeSummaryText(summary(1, 0, 0, 0)), { long: '1 file', short: '1 file' });
  });

  it('says nothing for a clean workspace even with its upstream, or with no summary', () => {
    assert.equal(changeSummaryText(summary(0, 0, 0, 0)), null);
    assert.equal(changeSummaryText(summary(0, 0, 0, null)), null);
    assert.equal(changeSummaryText(null), null);
    assert.equal(changeSummaryText(undefined), null);
  });
});
