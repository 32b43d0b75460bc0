import fs from 'node:fs';
import { loadConfigFile } from '../config/load.js';
import { parseListen } from '../config/schema.js';
import { resolvePaths, userHome } from '../core/home.js';
import { chatEngineFor } from '../harnesses/index.js';
import { newId } from '../core/ids.js';
import { LEO_BIN } from '../core/leo-bin.js';
import { rfc3339 } from '../core/time.js';
import type { TaskRun } from '../wire/fleet.js';
import { fireOneshot } from '../tasks/oneshot-firing.js';
import { taskOwner } from '../tasks/owner.js';
import type { TaskRunEventType } from '../tasks/task-run-ingress.js';
import { runningRun, type RunValues } from '../tasks/task-launch.js';
import { callDaemon } from './socket-client.js';

/** Announcing a run must never slow it: each call to the daemon gets this long. */
const ANNOUNCE_TIMEOUT_MS = 2000;

/**
 * `leo run <task>`: runs a task now, in this process. A oneshot task starts its headless harness here and announces
 * the run to the daemon over the socket (best effort: a daemon that is down, slow or refusing changes nothing but a
 * warning), and reports a failure card for a failed run with notify_on_fail. A persistent task runs inside its agent,
 * so the daemon is asked to fire it. Exit code: 0 succeeded, 1 failed, 130 interrupted.
 */
export async function runTaskCommand(task: string): Promise<void> {
  const paths = resolvePaths();
  const loaded = await loadConfigFile(paths.configFile, userHome(), chatEngineFor);
  if (!loaded.ok) {
    for (const e of loaded.errors) console.error(e);
    process.exit(2);
  }
  const config = loaded.config;
  const t = config.tasks[task];
  if (!t) {
    console.error(`leo run: no task named "${task}" in ${paths.configFile}`);
    process.exit(2);
  }
  if (t.runtime === 'persistent') {
    try {
      const r = await callDaemon<{ run_id: string }>('POST', `/api/v1/tasks/${encodeURIComponent(task)}/run`);
      console.log(`${task}: run ${r.run_id} started in its agent (persistent task); follow it on /api/v1/events`);
    } catch (err) {
      // Only the daemon can run a persistent task: without it there is no run, and one line says why.
      console.error(`leo run: ${task} not started: ${(err as Error).message}`);
      process.exitCode = 1;
    }
    return;
  }

  const bestEffort = async (what: string, fn: () => Promise<unknown>) => {
    try {
      return await fn();
    } catch (err) {
      console.error(`leo run: warning: ${what}: ${(err as Error).message}`);
      return undefined;
    }
  };
  const agents = (await bestEffort('could not reach the daemon', () =>
    callDaemon<{ agents: { name: string; workspace: string }[] }>(
      'GET',
      '/api/v1/state',
      undefined,
      ANNOUNCE_TIMEOUT_MS,
    ),
  )) as { agents: { name: string; workspace: string }[] } | undefined;
  const owner = taskOwner(config, task, agents?.agents ?? [], paths.home);
  const listen = parseListen(config.web.listen)!;
  const host = listen.host === '0.0.0.0' || listen.host === '::' ? '127.0.0.1' : listen.host;
  const runId = newId(Date.now());
  const agentToken = fs.existsSync(paths.agentTokenFile) ? fs.readFileSync(paths.agentTokenFile, 'utf8').trim() : '';
  const startedAt = Date.now();
  const running = (values: RunValues): TaskRun => runningRun(runId, task, startedAt, values);
  const announce = (type: TaskRunEventType, r: TaskRun) =>
    bestEffort('could not announce the run to the daemon', () =>
      callDaemon('POST', '/observe/task-run', { type, run: r }, ANNOUNCE_TIMEOUT_MS),
    );
  const abort = new AbortController();
  const interrupt = () => abort.abort();
  process.once('SIGINT', interrupt);
  process.once('SIGTERM', interrupt);
  const { result, values, logPath } = await fireOneshot({
    config,
    paths,
    task,
    runId,
    owner: owner.agent,
    baseUrl: `http://${host.includes(':') ? `[${host}]` : host}:${listen.port}`,
    agentToken,
    leoBin: LEO_BIN,
    nodeBin: process.execPath,
    signal: abort.signal,
    started: (v) => announce('task_run_started', running(v)),
  });
  const endedAt = Date.now();
  const finished: TaskRun = {
    ...running(values),
    status: result.ok ? 'succeeded' : 'failed',
    ended_at: rfc3339(endedAt),
    duration_ms: endedAt - startedAt,
    error: result.ok ? null : (result.error ?? 'failed'),
  };
  await announce(result.ok ? 'task_run_succeeded' : 'task_run_failed', finished);
  if (!result.ok && !result.interrupted && t.notify_on_fail) {
    await bestEffort('no failure card was posted', () =>
      callDaemon(
        'POST',
        '/chat/task-failure',
        {
          task,
          run_id: runId,
          attempts: Math.max(1, result.attempts),
          error: finished.error,
          log_path: logPath,
        },
        ANNOUNCE_TIMEOUT_MS,
      ),
    );
  }
  const outcome = result.ok
    ? 'succeeded'
    : result.interrupted
      ? 'interrupted'
      : `failed: ${finished.error?.split('\n')[0]}`;
  console.log(`${task}: run ${runId} ${outcome} (${result.attempts} attempt(s), log ${logPath})`);
  process.exitCode = result.ok ? 0 : result.interrupted ? 130 : 1;
}
