import path from 'node:path';
import type { Config, Harness, TaskConfig } from '../config/schema.js';
import type { LeoPaths } from '../core/home.js';
import { rfc3339 } from '../core/time.js';
import type { TaskRun } from '../wire/fleet.js';
import { planHeadless } from '../harnesses/headless.js';
import { HARNESSES } from '../harnesses/index.js';
import type { LaunchPlan } from '../harnesses/types.js';
import { agentEnv, resolveAgent } from '../agents/resolve.js';

/** The values a firing resolves (defaults → template → task), carried on every one of its run events. */
export interface RunValues {
  workspace: string;
  model: string;
  harness: Harness;
}

/** A firing's run record while it runs: the daemon's runner and `leo run` announce the same shape. */
export function runningRun(id: string, task: string, startedAt: number, values: RunValues): TaskRun {
  return { id, task, status: 'running', started_at: rfc3339(startedAt), ended_at: null, error: null, ...values };
}

export interface OneshotLaunch {
  plan: LaunchPlan;
  cwd: string;
  /** The cwd is the task's default workspace, Leo's own: made on the first run, as an agent's is at its spawn. */
  makeCwd: boolean;
  logPath: string;
  attempts: number;
  timeoutMs: number;
  values: RunValues;
}

/**
 * A task resolved through the same cascade as an agent: it is treated as a record named after the task, so its
 * workspace, model, harness and environments come out exactly as they would for an agent spawned from its template.
 * Without a `workspace:` (task's or template's) that is `<workspace_root>/<task>`, and `defaultWorkspace` is set.
 */
export function resolveTask(config: Config, name: string, task: TaskConfig, home: string) {
  const r = resolveAgent(
    {
      name,
      ...(task.template ? { template: task.template } : {}),
      ...(task.workspace ? { workspace: task.workspace } : {}),
      ...(task.model ? { model: task.model } : {}),
      ...(task.harness ? { harness: task.harness } : {}),
      ...(task.environments ? { environments: task.environments } : {}),
    } as Parameters<typeof resolveAgent>[0],
    config,
    home,
  );
  const defaultWorkspace = !task.workspace && !(task.template && config.templates[task.template]?.workspace);
  return { ...r, command: task.command ?? r.command, defaultWorkspace };
}

/**
 * The values a firing of the task runs with. A persistent task runs in its agent, which took the task's values when a
 * run first spawned it and keeps them: once that agent exists its own are reported (the config may have changed
 * since), so a task or run never names a model or harness that was not used.
 */
export function taskValues(
  config: Config,
  name: string,
  home: string,
  agentValues: (agent: string) => RunValues | undefined,
): RunValues {
  const task = config.tasks[name]!;
  const r = (task.runtime === 'persistent' ? agentValues(name) : undefined) ?? resolveTask(config, name, task, home);
  return { workspace: r.workspace, model: r.model, harness: r.harness };
}

/** Where a run's generated files and its log live: `$LEO_HOME/state/tasks/<task>/runs/<run id>[.log]`. */
export function runPaths(paths: LeoPaths, task: string, runId: string): { dir: string; logPath: string } {
  const runs = path.join(paths.stateDir, 'tasks', task, 'runs');
  return { dir: path.join(runs, runId), logPath: path.join(runs, `${runId}.log`) };
}

/**
 * Everything a oneshot firing needs to start its headless harness process, for the daemon and for `leo run` alike.
 * The run posts into its owner's thread: the MCP URL names the owner, the task headers name the run.
 */
export interface OneshotRequest {
  config: Config;
  paths: LeoPaths;
  task: string;
  runId: string;
  owner: string;
  baseUrl: string;
  agentToken: string;
  leoBin: string;
  nodeBin: string;
}

/** Throws, with the reason as its whole message, when the task cannot run as configured (see fireOneshot). */
export function prepareOneshot(o: OneshotRequest): OneshotLaunch {
  const task = o.config.tasks[o.task];
  if (!task) throw new Error(`no task named "${o.task}" in leo.yaml`);
  const r = resolveTask(o.config, o.task, task, o.paths.home);
  const why = r.templateError ?? r.environmentError;
  if (why) throw new Error(why);
  if (HARNESSES[r.harness].runsCommandLine && !r.command) throw new Error(`a ${r.harness} task needs a command`);
  const { dir, logPath } = runPaths(o.paths, o.task, o.runId);
  const plan = planHeadless(r.harness, {
    agent: o.owner,
    workspace: r.workspace,
    ...(r.model ? { model: r.model } : {}),
    ...(r.command ? { command: r.command } : {}),
    permissions: r.permissions,
    env: agentEnv({ name: o.task, ...(task.template ? { template: task.template } : {}) } as never, r, o.config),
    leo: {
      home: o.paths.home,
      agentDir: dir,
      mcpUrl: `${o.baseUrl}/api/agent/${encodeURIComponent(o.owner)}/mcp`,
      agentToken: o.agentToken,
      leoBin: o.leoBin,
      nodeBin: o.nodeBin,
      socketPath: o.paths.socketFile,
    },
    permissionWaitMs: Math.max(o.config.chat.permission_timeout, o.config.chat.question_timeout),
    prompt: task.prompt,
    task: o.task,
    runId: o.runId,
  });
  return {
    plan,
    cwd: r.workspace,
    makeCwd: r.defaultWorkspace,
    logPath,
    attempts: task.attempts,
    timeoutMs: task.timeout,
    values: { workspace: r.workspace, model: r.model, harness: r.harness },
  };
}
