// What a headless task run is given, and the identity every harness's run adds to its interactive plan: LEO_TASK and
// LEO_RUN_ID in the env, and the caller headers each CLI fills from them (see headless.ts).
import { CallerEnv, CallerHeaders } from '../wire/caller-headers.js';
import type { LaunchContext, LaunchPlan } from './types.js';

export interface HeadlessContext extends LaunchContext {
  /**
   * The task's prompt; the shell harness gets it in LEO_TASK_PROMPT instead of argv, and needs none (its command is
   * the whole task).
   */
  prompt?: string;
  /** Task name, as LEO_TASK. */
  task: string;
  /** This run's id, as LEO_RUN_ID. */
  runId: string;
}

/** In a run's folder: the Stop hook payloads of a headless run whose CLI reports them (one JSON object a line). */
export const RUN_STOPS_FILE = 'stops.jsonl';

/** Where the shell harness's command finds the task's prompt: a shell command line has no prompt argument. */
export const TASK_PROMPT_ENV = 'LEO_TASK_PROMPT';

const TASK_ENV = CallerEnv[CallerHeaders.task];
const RUN_ID_ENV = CallerEnv[CallerHeaders.runId];

/**
 * The caller headers a task run sends, each naming the variable it is filled from (the pairs `leo mcp-stdio` uses),
 * written as `variable` spells a reference in the harness's config.
 */
export function taskHeaders(variable: (name: string) => string): Record<string, string> {
  return { [CallerHeaders.task]: variable(TASK_ENV), [CallerHeaders.runId]: variable(RUN_ID_ENV) };
}

/** The run's identity in its env. */
export function taskRunEnv(ctx: HeadlessContext): Record<string, string> {
  return { [TASK_ENV]: ctx.task, [RUN_ID_ENV]: ctx.runId };
}

/** What a headless plan changes from the interactive one; the env is shared. */
export type HeadlessPart = Pick<LaunchPlan, 'argv' | 'files'>;

export type Prompted = HeadlessContext & { prompt: string };
