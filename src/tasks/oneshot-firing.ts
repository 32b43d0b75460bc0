import { headlessFailure } from '../harnesses/headless.js';
import { logNotStarted, runOneshot, type OneshotResult } from './oneshot-runner.js';
import { prepareOneshot, resolveTask, runPaths, type OneshotRequest, type RunValues } from './task-launch.js';

export interface FiredOneshot {
  result: OneshotResult;
  values: RunValues;
  logPath: string;
}

/**
 * One `runtime: oneshot` firing, from its launch plan to its result: the daemon's runner and `leo run` both fire
 * through here. It never throws for a task that cannot run as configured (an undefined environment or template, a
 * shell task without a command): that run still starts (`started` is told its values) and fails without an attempt,
 * its reason written to the run's log, so it is recorded, carded and explained like any other failed run.
 */
export async function fireOneshot(
  o: OneshotRequest & {
    signal?: AbortSignal;
    /** Called once the run's values are known, before any process starts. */
    started(values: RunValues): Promise<unknown> | void;
    /** The process runner; tests may hand in their own. */
    run?: typeof runOneshot;
  },
): Promise<FiredOneshot> {
  let launch;
  try {
    launch = prepareOneshot(o);
  } catch (err) {
    const task = o.config.tasks[o.task];
    if (!task) throw err;
    const r = resolveTask(o.config, o.task, task, o.paths.home);
    const values: RunValues = { workspace: r.workspace, model: r.model, harness: r.harness };
    const { logPath } = runPaths(o.paths, o.task, o.runId);
    await o.started(values);
    const error = (err as Error).message;
    // A log that cannot be written must not turn the refusal into a crash: the run still fails with its reason.
    await logNotStarted(logPath, error).catch(() => undefined);
    return { result: { ok: false, attempts: 0, error, interrupted: false, exitCode: null }, values, logPath };
  }
  await o.started(launch.values);
  const result = await (o.run ?? runOneshot)({
    argv: launch.plan.argv,
    env: launch.plan.env,
    files: launch.plan.files,
    cwd: launch.cwd,
    makeCwd: launch.makeCwd,
    logPath: launch.logPath,
    attempts: launch.attempts,
    timeoutMs: launch.timeoutMs,
    explain: (tail) => headlessFailure(launch.values.harness, tail),
    ...(o.signal ? { signal: o.signal } : {}),
  });
  return { result, values: launch.values, logPath: launch.logPath };
}
