import assert from 'node:assert/strict';
import type { TestDaemon } from './daemon.js';
import { request } from './http.js';
import { until } from './wait.js';

/** Fires a task now through the API, as a person's "Run now" does; the run's id. */
export async function fireTask(d: TestDaemon, task: string): Promise<string> {
  const fired = await d.op('POST', `/api/v1/tasks/${task}/run`);
  assert.equal(fired.status, 202, fired.text);
  return fired.json.data.run_id;
}

/** Waits for run `runId` of `task` to finish, as /state's recent runs report it. */
export function runFinished(d: TestDaemon, task: string, runId: string, timeoutMs = 90_000): Promise<any> {
  const token = d.daemon.operatorToken;
  return until(
    `the ${task} run to finish`,
    async () =>
      (await request(d.tcp, 'GET', '/api/v1/state', { token })).json.data.recent_runs.find(
        (r: any) => r.id === runId && r.status !== 'running',
      ),
    timeoutMs,
    250,
  );
}

/** Fires a task now and waits for that run to finish. */
export async function runTaskNow(
  d: TestDaemon,
  task: string,
  timeoutMs = 90_000,
): Promise<{ runId: string; run: any }> {
  const runId = await fireTask(d, task);
  return { runId, run: await runFinished(d, task, runId, timeoutMs) };
}
