import assert from 'node:assert/strict';
import type { TestDaemon } from './daemon.js';
import { request } from './http.js';
import { until } from './wait.js';

/** Fires a task now through the API, as a person's "Run now" does, and waits for that run to finish in /state. */
export async function runTaskNow(
  d: TestDaemon,
  task: string,
  timeoutMs = 90_000,
): Promise<{ runId: string; run: any }> {
  const token = d.daemon.operatorToken;
  const fired = await request(d.tcp, 'POST', `/api/v1/tasks/${task}/run`, { token });
  assert.equal(fired.status, 202, fired.text);
  const runId: string = fired.json.data.run_id;
  const run = await until(
    `the ${task} run to finish`,
    async () =>
      (await request(d.tcp, 'GET', '/api/v1/state', { token })).json.data.recent_runs.find(
        (r: any) => r.id === runId && r.status !== 'running',
      ),
    timeoutMs,
    500,
  );
  return { runId, run };
}
