import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { rfc3339 } from '../../src/core/time.js';
import { TaskRun } from '../../src/wire/fleet.js';
import { normalizeTaskRunEvent, TASK_RUN_BODY_MAX_BYTES } from '../../src/tasks/task-run-ingress.js';

const STARTED = '2026-10-15T14:00:00-04:00';
const ENDED = '2026-10-15T14:01:30-04:00';
const full = {
  id: '01JRUN',
  task: 'daily-news',
  started_at: STARTED,
  ended_at: ENDED,
  duration_ms: 90_000,
  error: 'timeout',
  workspace: '/w/news',
  model: 'opus',
  harness: 'claude',
};

/** When the route received the body; only a run without started_at uses it. */
const RECEIVED = Date.UTC(2026, 9, 15, 18, 30);

function ok(body: unknown, receivedAt = RECEIVED) {
  const r = normalizeTaskRunEvent(body, receivedAt);
  assert.ok(r.ok, r.ok ? '' : r.error);
  TaskRun.parse(r.run);
  return r;
}

function refused(body: unknown): string {
  const r = normalizeTaskRunEvent(body, RECEIVED);
  assert.ok(!r.ok, 'expected a refusal');
  return r.error;
}

describe('normalizeTaskRunEvent', () => {
  it('caps the body at 64 KiB', () => {
    assert.equal(TASK_RUN_BODY_MAX_BYTES, 65_536);
  });

  it('derives status from type, never from the request', () => {
    for (const [type, status] of [
      ['task_run_started', 'running'],
      ['task_run_succeeded', 'succeeded'],
      ['task_run_failed', 'failed'],
    ] as const) {
      const r = ok({ type, run: { ...full, status: status === 'failed' ? 'succeeded' : 'failed' } });
      assert.equal(r.type, type);
      assert.equal(r.run.status, status);
    }
  });

  it('a failed run keeps everything it was sent', () => {
    assert.deepEqual(ok({ type: 'task_run_failed', run: full }).run, { ...full, status: 'failed' });
  });

  it('a running run has ended_at null, no duration and no error', () => {
    const { run } = ok({ type: 'task_run_started', run: full });
    assert.equal(run.ended_at, null);
    assert.ok(!('duration_ms' in run));
    assert.equal(run.error, null);
  });

  it('error is null unless failed, and null for a failure without one', () => {
    assert.equal(ok({ type: 'task_run_succeeded', run: full }).run.error, null);
    assert.equal(ok({ type: 'task_run_failed', run: { ...full, error: undefined } }).run.error, null);
    assert.equal(ok({ type: 'task_run_failed', run: { ...full, error: null } }).run.error, null);
  });

  it('a finished run without an end or duration leaves them out rather than inventing them', () => {
    const { run } = ok({ type: 'task_run_succeeded', run: { id: 'r', task: 't', started_at: STARTED } });
    assert.deepEqual(run, {
      id: 'r',
      task: 't',
      status: 'succeeded',
      started_at: STARTED,
      error: null,
      workspace: '',
      model: '',
      harness: '',
    });
  });

  it('requires id and task, non-empty after trimming, and trims them', () => {
    assert.match(refused({ type: 'task_run_started', run: { ...full, id: '  ' } }), /^run\.id: must not be empty$/);
    assert.match(refused({ type: 'task_run_started', run: { ...full, task: '' } }), /^run\.task: must not be empty$/);
    assert.match(refused({ type: 'task_run_started', run: { task: 't', started_at: STARTED } }), /^run\.id: /);
    assert.match(refused({ type: 'task_run_started', run: { id: 'r', started_at: STARTED } }), /^run\.task: /);
    const { run } = ok({ type: 'task_run_started', run: { ...full, id: ' r1 ', task: '\tdaily\n' } });
    assert.equal(run.id, 'r1');
    assert.equal(run.task, 'daily');
  });

  it('refuses a body that is not an event, naming the field', () => {
    assert.match(refused(null), /^body: /);
    assert.match(refused('x'), /^body: /);
    assert.match(refused({ run: full }), /^type: /);
    assert.match(refused({ type: 'task_run_exploded', run: full }), /^type: /);
    assert.match(refused({ type: 'task_run_started' }), /^run: /);
    assert.match(refused({ type: 'task_run_started', run: { ...full, id: 7 } }), /^run\.id: /);
    assert.match(
      refused({ type: 'task_run_started', run: { ...full, started_at: 'yesterday' } }),
      /^run\.started_at: /,
    );
    assert.match(refused({ type: 'task_run_failed', run: { ...full, ended_at: '2026-10-15' } }), /^run\.ended_at: /);
    assert.match(refused({ type: 'task_run_failed', run: { ...full, duration_ms: -1 } }), /^run\.duration_ms: /);
  });

  it('truncates id, task, model and harness to 200, workspace to 1024 and error to 4096 code points', () => {
    const long = (n: number) => '😀'.repeat(n + 10);
    const { run } = ok({
      type: 'task_run_failed',
      run: {
        ...full,
        id: long(200),
        task: long(200),
        model: long(200),
        harness: long(200),
        workspace: long(1024),
        error: long(4096),
      },
    });
    const cps = (s: string | null | undefined) => Array.from(s ?? '').length;
    assert.deepEqual(
      [run.id, run.task, run.model, run.harness, run.workspace, run.error].map(cps),
      [200, 200, 200, 200, 1024, 4096],
    );
    assert.equal(run.id, '😀'.repeat(200), 'no half surrogate pair left behind');
    const exact = ok({ type: 'task_run_failed', run: { ...full, error: 'e'.repeat(4096) } }).run;
    assert.equal(exact.error, 'e'.repeat(4096), 'a value at the limit is kept whole');
  });

  it('ignores unknown fields', () => {
    const { run } = ok({ type: 'task_run_succeeded', extra: 1, run: { ...full, secret: 'x', nested: { a: 1 } } });
    assert.deepEqual(Object.keys(run).sort(), [
      'duration_ms',
      'ended_at',
      'error',
      'harness',
      'id',
      'model',
      'started_at',
      'status',
      'task',
      'workspace',
    ]);
  });

  it('a run without started_at is stamped with the time it was received, never refused for it', () => {
    const body = { type: 'task_run_started', run: { id: 'r', task: 't' } };
    assert.equal(ok(body).run.started_at, rfc3339(RECEIVED));
    assert.equal(ok({ ...body, run: { ...body.run, started_at: null } }).run.started_at, rfc3339(RECEIVED));
    assert.equal(ok({ ...body, run: { ...body.run, started_at: STARTED } }).run.started_at, STARTED);
  });
});
