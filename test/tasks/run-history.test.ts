import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, it } from 'node:test';
import { rfc3339 } from '../../src/core/time.js';
import { openDatabase } from '../../src/store/database.js';
import { RunHistory } from '../../src/tasks/run-history.js';
import { MIN, T0, taskRun } from './task-run-fixture.js';

function history() {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'leo-task-runs-'));
  const db = openDatabase(path.join(dir, 'chat.db'));
  return { h: new RunHistory(db), db, done: () => (db.close(), fs.rmSync(dir, { recursive: true, force: true })) };
}

describe('RunHistory', () => {
  it('the task_runs table refuses statuses other than succeeded and failed', () => {
    const { db, done } = history();
    try {
      assert.throws(
        () =>
          db
            .prepare("INSERT INTO task_runs (id, task, status, completed_at) VALUES ('x', 't', 'running', 'now')")
            .run(),
        /CHECK constraint/,
      );
    } finally {
      done();
    }
  });

  it('stores finished runs and returns them newest completed first, as recorded', () => {
    const { h, done } = history();
    try {
      const a = taskRun('a');
      const b = taskRun('b', 5, { status: 'failed', error: 'timeout' });
      const c = taskRun('c', 2, { task: 'other' });
      h.record(a, { completedAt: T0 + MIN });
      h.record(b, { completedAt: T0 + 6 * MIN, attempts: 3, logPath: '/logs/b.log' });
      h.record(c, { completedAt: T0 + 3 * MIN });
      assert.deepEqual(h.recent(10), [b, c, a]);
      assert.deepEqual(h.recent(2), [b, c]);
      assert.deepEqual(h.recent(0), []);
      assert.deepEqual(h.get('b'), { run: b, completedAt: T0 + 6 * MIN, attempts: 3, logPath: '/logs/b.log' });
      assert.deepEqual(h.get('a'), { run: a, completedAt: T0 + MIN, attempts: null, logPath: null });
      assert.equal(h.get('nope'), null);
    } finally {
      done();
    }
  });

  it('orders by completion to the millisecond, not the second', () => {
    const { h, done } = history();
    try {
      h.record(taskRun('late'), { completedAt: T0 + 900 });
      h.record(taskRun('early'), { completedAt: T0 + 100 });
      assert.deepEqual(
        h.recent(5).map((r) => r.id),
        ['late', 'early'],
      );
    } finally {
      done();
    }
  });

  it('recording the same id again replaces the entry', () => {
    const { h, done } = history();
    try {
      h.record(taskRun('a'), { completedAt: T0 + MIN, attempts: 1 });
      const again = taskRun('a', 0, { status: 'failed', error: 'boom' });
      h.record(again, { completedAt: T0 + 2 * MIN, attempts: 2 });
      assert.deepEqual(h.recent(10), [again]);
      assert.equal(h.get('a')!.attempts, 2);
    } finally {
      done();
    }
  });

  it('refuses a running run: history holds finished runs only', () => {
    const { h, done } = history();
    try {
      assert.throws(
        () => h.record(taskRun('r', 0, { status: 'running', ended_at: null }), { completedAt: T0 }),
        /running/,
      );
      assert.deepEqual(h.recent(10), []);
    } finally {
      done();
    }
  });

  it('an entry without a start time reports its completion as started_at and omits ended_at and duration_ms', () => {
    const { h, db, done } = history();
    try {
      const completedAt = T0 + 7 * MIN;
      db.prepare(
        "INSERT INTO task_runs (id, task, status, completed_at, error) VALUES ('old', 'daily-news', 'failed', ?, 'x')",
      ).run(new Date(completedAt).toISOString());
      const [old] = h.recent(10);
      assert.deepEqual(old, {
        id: 'old',
        task: 'daily-news',
        status: 'failed',
        started_at: rfc3339(completedAt),
        error: 'x',
        workspace: '',
        model: '',
        harness: '',
      });
      assert.ok(!('ended_at' in old!) && !('duration_ms' in old!), 'never fabricated');
      assert.equal(h.lastRunAt('daily-news'), completedAt);
    } finally {
      done();
    }
  });

  it('a recorded run with no end keeps ended_at out rather than reporting null (which means running)', () => {
    const { h, done } = history();
    try {
      const partial = taskRun('p');
      delete partial.ended_at;
      delete partial.duration_ms;
      h.record(partial, { completedAt: T0 + MIN });
      const [got] = h.recent(1);
      assert.deepEqual(got, partial);
      assert.ok(!('ended_at' in got!));
    } finally {
      done();
    }
  });

  it('lastRunAt is the start of the task’s newest completed run, null without runs', () => {
    const { h, done } = history();
    try {
      assert.equal(h.lastRunAt('daily-news'), null);
      h.record(taskRun('a'), { completedAt: T0 + MIN });
      h.record(taskRun('b', 10), { completedAt: T0 + 11 * MIN });
      h.record(taskRun('c', 20, { task: 'other' }), { completedAt: T0 + 21 * MIN });
      assert.equal(h.lastRunAt('daily-news'), T0 + 10 * MIN);
      assert.equal(h.lastRunAt('other'), T0 + 20 * MIN);
      assert.equal(h.lastRunAt('missing'), null);
    } finally {
      done();
    }
  });
});
