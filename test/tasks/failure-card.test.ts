import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { failureCardText, TaskFailureBody } from '../../src/tasks/failure-card.js';

const card = { task: 'daily-news', runId: '01JRUN', attempts: 3, error: 'exit status 1', logPath: '/l/run.log' };

describe('failureCardText', () => {
  it('is the spec’s card to the letter: "<n> attempt(s)"', () => {
    assert.equal(
      failureCardText(card),
      '**Task failed: daily-news**\nRun `01JRUN` · 3 attempt(s)\n```\nexit status 1\n```\nLog: `/l/run.log`',
    );
    assert.match(failureCardText({ ...card, attempts: 1 }), /^Run `01JRUN` · 1 attempt\(s\)$/m);
  });

  it('shows the first 500 code points of the error', () => {
    const text = failureCardText({ ...card, error: '😀'.repeat(499) + 'abc' });
    assert.ok(text.includes('\n' + '😀'.repeat(499) + 'a\n```'));
    assert.ok(!text.includes('ab'));
  });

  it('an error containing a fence cannot close the block', () => {
    const error = 'before\n```\n**injected**\n`````x';
    const text = failureCardText({ ...card, error });
    assert.equal(
      text,
      '**Task failed: daily-news**\nRun `01JRUN` · 3 attempt(s)\n``````\n' + error + '\n``````\nLog: `/l/run.log`',
    );
  });

  it('a backtick in the run id or log path cannot end its inline code', () => {
    const text = failureCardText({ ...card, runId: 'a`b', logPath: '`odd' });
    assert.match(text, /^Run ``a`b`` · /m);
    assert.match(text, /^Log: `` `odd ``$/m);
  });
});

describe('TaskFailureBody', () => {
  const body = { task: 'daily-news', run_id: '01JRUN', attempts: 2, error: 'boom', log_path: '/l/run.log' };

  it('accepts the route’s body', () => {
    assert.deepEqual(TaskFailureBody.parse(body), body);
  });

  it('refuses unknown fields, missing fields, bad attempts and overlong values', () => {
    const bad: unknown[] = [
      { ...body, extra: 1 },
      { ...body, run_id: undefined },
      { ...body, run_id: '  ' },
      { ...body, attempts: 0 },
      { ...body, attempts: 1.5 },
      { ...body, task: 'not a name' },
      { ...body, run_id: 'x'.repeat(201) },
      { ...body, log_path: '' },
      { ...body, log_path: 'x'.repeat(4097) },
      { ...body, error: 'x'.repeat(64 * 1024 + 1) },
    ];
    for (const b of bad) assert.equal(TaskFailureBody.safeParse(b).success, false, JSON.stringify(b).slice(0, 80));
  });
});
