import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { RunLog } from '../../src/tasks/run-log.js';
import { MIN, T0, taskRun } from './task-run-fixture.js';

const ids = (log: RunLog) => log.list().map((r) => r.id);

describe('RunLog', () => {
  it('lists newest first by started_at, equal starts newest-recorded first', () => {
    const log = new RunLog();
    log.upsert(taskRun('b', 5));
    log.upsert(taskRun('a', 1));
    log.upsert(taskRun('c', 9));
    log.upsert(taskRun('tie1', 5));
    log.upsert(taskRun('tie2', 5));
    assert.deepEqual(ids(log), ['c', 'tie2', 'tie1', 'b', 'a']);
  });

  it('a later event for the same id replaces the run in place', () => {
    const log = new RunLog();
    log.upsert(taskRun('x', 5, { status: 'running', ended_at: null }));
    log.upsert(taskRun('y', 5));
    const done = taskRun('x', 5, { status: 'failed', error: 'boom' });
    log.upsert(done);
    assert.deepEqual(log.list(), [taskRun('y', 5), done], 'one entry, keeping its first-seen place among ties');
  });

  it('is bounded: over the cap, the oldest run by start is dropped', () => {
    const log = new RunLog(3);
    log.upsert(taskRun('m2', 2));
    log.upsert(taskRun('m1', 1));
    log.upsert(taskRun('m3', 3));
    log.upsert(taskRun('m4', 4));
    assert.deepEqual(ids(log), ['m4', 'm3', 'm2']);
    log.upsert(taskRun('m0', 0));
    assert.deepEqual(ids(log), ['m4', 'm3', 'm2'], 'a run older than everything held is not kept');
    log.upsert(taskRun('m4', 4, { status: 'failed', error: 'x' }));
    assert.deepEqual(ids(log), ['m4', 'm3', 'm2'], 'a replacement does not evict');
  });

  it('holds 50 runs by default', () => {
    const log = new RunLog();
    for (let i = 0; i < 60; i++) log.upsert(taskRun(`r${i}`, i));
    assert.equal(log.list().length, 50);
    assert.equal(log.list()[0]!.id, 'r59');
    assert.equal(log.list()[49]!.id, 'r10');
  });

  it('lastRunAt is the newest start of the task’s runs, running ones included', () => {
    const log = new RunLog();
    assert.equal(log.lastRunAt('daily-news'), null);
    log.upsert(taskRun('a', 1));
    log.upsert(taskRun('b', 7, { status: 'running', ended_at: null }));
    log.upsert(taskRun('c', 9, { task: 'other' }));
    assert.equal(log.lastRunAt('daily-news'), T0 + 7 * MIN);
    assert.equal(log.lastRunAt('other'), T0 + 9 * MIN);
    assert.equal(log.lastRunAt('missing'), null);
  });
});
