// The daemon's info log over a day's use: one line per agent start and stop, expired prompt and failed task run,
// carrying names and reasons and never an environment's value.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createLogger } from '../../src/core/logger.js';
import { activityLine } from '../../src/daemon/activity-log.js';
import { sseFrame } from '../../src/events/event.js';
import { startTestDaemon } from '../helpers/daemon.js';
import { request } from '../helpers/http.js';
import { until } from '../helpers/wait.js';

const SECRET = 'sk-live-do-not-log-0123456789';

describe('the daemon logs its day at info', () => {
  it('an agent started and stopped, and a task run failed: one line each, no secrets', async () => {
    const lines: Record<string, unknown>[] = [];
    const logger = createLogger('info', { write: (l: string) => void lines.push(JSON.parse(l)) });
    const t = await startTestDaemon({
      logger,
      config: `environments:
  keys: { API_KEY: ${SECRET} }
templates:
  cat: { harness: shell, command: "exec cat", environments: [keys] }
tasks:
  breaks:
    schedule: "0 0 1 1 *"
    harness: shell
    command: 'echo "$API_KEY"; exit 3'
    environments: [keys]
`,
    });
    try {
      const op = t.daemon.operatorToken;
      const spawned = await request(t.tcp, 'POST', '/api/v1/agents/spawn', {
        token: op,
        body: { template: 'cat', name: 'den' },
      });
      assert.equal(spawned.status, 201, spawned.text);
      const stopped = await request(t.tcp, 'POST', '/api/v1/agents/den/stop', { token: op });
      assert.equal(stopped.status, 200, stopped.text);
      const run = await request(t.tcp, 'POST', '/api/v1/tasks/breaks/run', { token: op });
      assert.equal(run.status, 202, run.text);
      const failed = await until('the run failed line', () => lines.find((l) => l.msg === 'task run failed'), 20_000);
      assert.equal(failed.task, 'breaks');
      assert.equal(failed.run_id, run.json.data.run_id);
      assert.equal(failed.level, 30);
      assert.equal(failed.reason, 'exit 3');
      const started = lines.filter((l) => l.msg === 'agent started');
      assert.deepEqual(
        started.map((l) => [l.agent, l.harness, l.template, l.level]),
        [['den', 'shell', 'cat', 30]],
      );
      assert.deepEqual(
        lines.filter((l) => l.msg === 'agent stopped').map((l) => l.agent),
        ['den'],
      );
      assert.equal(
        JSON.stringify(lines).includes(SECRET),
        false,
        JSON.stringify(lines.filter((l) => JSON.stringify(l).includes(SECRET))),
      );
    } finally {
      await t.stop();
    }
  });

  it('a permission prompt or question that expires is a line; other changes are not', () => {
    const event = (type: string, data: Record<string, unknown>) => ({
      type,
      audience: 'chat' as const,
      seq: 1,
      at: '',
      data,
      frame: sseFrame(type, data),
    });
    const prompt = { id: '01P', agent: 'den', kind: 'permission', state: 'expired', text: 'rm -rf secret-dir' };
    const line = activityLine(event('chat.updated', { message: prompt, change: 'state' }));
    assert.deepEqual(line, {
      fields: { agent: 'den', id: '01P', kind: 'permission', reason: 'timeout' },
      msg: 'prompt expired',
    });
    const question = { ...prompt, kind: 'question', closed_reason: 'dismissed' };
    assert.equal(
      activityLine(event('chat.updated', { message: question, change: 'state' }))?.fields.reason,
      'dismissed',
    );
    assert.equal(
      activityLine(event('chat.updated', { message: { ...prompt, state: 'answered' }, change: 'state' })),
      null,
    );
    assert.equal(activityLine(event('chat.message', { message: prompt })), null);
  });
});
