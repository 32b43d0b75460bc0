// The routes Leo Web's task screens read (issue 17): GET /api/v1/tasks (each task with its owner and its own runs),
// a run's log tail (path from the stored run, capped at 256 KB), and "run now" open to devices with the fleet scope.
// Real oneshot shell runs through the daemon's runner.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { z } from 'zod';
import { RUN_LOG_TAIL_BYTES, RunLogTail, TaskDetail, TaskRunStarted } from '../../src/wire/tasks.js';
import { IssuedToken } from '../../src/wire/tokens.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { until } from '../helpers/wait.js';
import { tempDir } from '../helpers/temp-home.js';

const config = (workspace: string) => `templates:
  cat: { harness: shell, command: "exec cat" }
tasks:
  chatty:
    schedule: "0 0 1 1 *"
    harness: shell
    workspace: ${JSON.stringify(workspace)}
    command: 'echo FIRST-LINE; yes "a line of output" | head -c 400000; echo; echo LAST-LINE; exit 2'
    prompt: talk a lot
    owner: den
  quiet:
    schedule: "30 6 * * *"
    harness: shell
    workspace: ${JSON.stringify(workspace)}
    command: 'echo done'
    prompt: say done
`;

describe('task screens: tasks, runs and logs', () => {
  let t: TestDaemon;
  let device: string;
  const tasks = () => t.as(device).get('/api/v1/tasks', z.array(TaskDetail));
  const finished = (task: string) =>
    until(
      `${task}'s run finished`,
      async () => {
        const run = (await tasks()).find((x) => x.name === task)?.runs[0];
        return run && run.status !== 'running' ? run : undefined;
      },
      20_000,
    );

  before(async () => {
    const workspace = tempDir('leo-task-screens-');
    t = await startTestDaemon({ config: config(workspace) });
    const d = await t.op('POST', '/api/v1/devices', { name: 'phone', fleet: true });
    device = IssuedToken.parse(d.json.data).token;
    const den = await t.as(device).op('POST', '/api/v1/agents/spawn', { template: 'cat', name: 'den' });
    assert.equal(den.status, 201, den.text);
  });
  after(async () => t?.stop());

  it('a device runs a task now; the task lists its owner, schedule, next run and the run with status and duration', async () => {
    const r = await t.as(device).op('POST', '/api/v1/tasks/chatty/run');
    assert.equal(r.status, 202, r.text);
    const run = await finished('chatty');
    assert.equal(run.id, TaskRunStarted.parse(r.json.data).run_id);
    assert.equal(run.status, 'failed');
    assert.equal(typeof run.duration_ms, 'number');
    const listed = await tasks();
    const chatty = listed.find((x) => x.name === 'chatty')!;
    assert.equal(chatty.owner, 'den');
    assert.equal(chatty.schedule, '0 0 1 1 *');
    const quiet = listed.find((x) => x.name === 'quiet')!;
    assert.equal(quiet.owner, 'assistant');
    assert.ok(quiet.next_run_at);
    assert.deepEqual(quiet.runs, []);
  });

  it("a run's log is its last 256 KB, starting on a whole line, path from the run record", async () => {
    const run = await finished('chatty');
    const log = await t.as(device).get(`/api/v1/tasks/chatty/runs/${run.id}/log`, RunLogTail);
    assert.equal(log.truncated, true);
    assert.ok(log.bytes > 400_000);
    assert.ok(Buffer.byteLength(log.text) <= RUN_LOG_TAIL_BYTES);
    assert.match(log.text, /LAST-LINE/);
    assert.doesNotMatch(log.text, /FIRST-LINE/);
    assert.match(log.text, /^a line of output\n/);
  });

  it('a run id under another task, an unknown id or a path as the id finds no log; API clients are refused', async () => {
    const run = await finished('chatty');
    assert.equal((await t.as(device).op('GET', `/api/v1/tasks/quiet/runs/${run.id}/log`)).status, 404);
    assert.equal((await t.as(device).op('GET', '/api/v1/tasks/chatty/runs/nope/log')).status, 404);
    assert.equal((await t.as(device).op('GET', `/api/v1/tasks/chatty/runs/..%2F..%2Fleo.yaml/log`)).status, 404);
    const client = t.as(IssuedToken.parse((await t.op('POST', '/api/v1/clients', { name: 'dash' })).json.data).token);
    assert.equal((await client.op('GET', '/api/v1/tasks')).status, 403);
    assert.equal((await client.op('POST', '/api/v1/tasks/quiet/run')).status, 403);
  });
});
