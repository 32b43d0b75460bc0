import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { mergeRecentRuns } from '../../src/tasks/recent-runs.js';
import { taskRun } from './task-run-fixture.js';

describe('mergeRecentRuns', () => {
  it('merges newest first by started_at', () => {
    const merged = mergeRecentRuns([taskRun('l2', 2), taskRun('l8', 8)], [taskRun('h5', 5), taskRun('h1', 1)]);
    assert.deepEqual(
      merged.map((r) => r.id),
      ['l8', 'h5', 'l2', 'h1'],
    );
  });

  it('keeps one entry per id, the run log’s', () => {
    const live = taskRun('x', 5, { status: 'running', ended_at: null });
    delete live.duration_ms;
    const stale = taskRun('x', 4, { status: 'failed', error: 'old' });
    const merged = mergeRecentRuns([live], [stale, taskRun('y', 3)]);
    assert.deepEqual(merged, [live, taskRun('y', 3)]);
  });

  it('caps the result (default 50) after sorting, so the newest survive', () => {
    const log = Array.from({ length: 30 }, (_, i) => taskRun(`l${i}`, 2 * i));
    const history = Array.from({ length: 30 }, (_, i) => taskRun(`h${i}`, 2 * i + 1));
    const merged = mergeRecentRuns(log, history);
    assert.equal(merged.length, 50);
    assert.equal(merged[0]!.id, 'h29');
    assert.equal(merged[49]!.id, 'l5');
    assert.deepEqual(
      mergeRecentRuns(log, history, 3).map((r) => r.id),
      ['h29', 'l29', 'h28'],
    );
    assert.deepEqual(mergeRecentRuns(log, history, 0), []);
  });

  it('does not modify its inputs', () => {
    const log = [taskRun('a', 1), taskRun('b', 2)];
    mergeRecentRuns(log, []);
    assert.deepEqual(
      log.map((r) => r.id),
      ['a', 'b'],
    );
  });
});
