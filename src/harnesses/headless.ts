// planHeadless: one task run's command line, as data, for `runtime: oneshot` tasks. The run is a fresh headless process
// (no tmux, no resume) in the task's workspace that prints its work and exits. It starts from the harness's
// interactive plan, so it gets the same env, config files and permissions, and adds the run's identity: LEO_TASK and
// LEO_RUN_ID in the env, and the X-Leo-Task / X-Leo-Run-Id caller headers on Leo's MCP server, filled from those
// variables by the harness itself, so the daemon files the run's posts as task cards.
//
// Every agent CLI gets its prompt after `--`, so a prompt that starts with `-` (or names a subcommand such as codex's
// `review`) is read as the prompt and never as an option. Measured behind scripted servers with claude 2.1.328, codex
// 0.169.0 and opencode 1.18.33: a prompt `--help me` reached each model verbatim, and each CLI sent both caller
// headers, expanded, to Leo's MCP endpoint.
import { HARNESSES } from './index.js';
import { assertNoTokenInArgv, sortKeys } from './common.js';
import { planLaunch, withFile } from './launch.js';
import { instructionsFile } from './instructions.js';
import { TASK_PROMPT_ENV, taskRunEnv, type HeadlessContext, type Prompted } from './task-run.js';
import type { Harness, LaunchPlan } from './types.js';

export { RUN_STOPS_FILE, TASK_PROMPT_ENV, type HeadlessContext } from './task-run.js';

export function planHeadless(harness: Harness, ctx: HeadlessContext): LaunchPlan {
  const adapter = HARNESSES[harness];
  if (ctx.prompt === undefined) {
    if (!adapter.runsCommandLine) throw new Error(`a ${harness} task needs a prompt`);
  } else if (ctx.prompt.trim() === '' || ctx.prompt.includes('\0')) throw new Error('invalid task prompt');
  // Every run is a new conversation: resuming would continue the owner agent's own, or the previous run's.
  const fresh: Prompted = { ...ctx, prompt: ctx.prompt ?? '', resume: false, resumeSessionId: undefined };
  const interactive = planLaunch(harness, fresh);
  const { argv, files } = adapter.headless(fresh, interactive);
  assertNoTokenInArgv(ctx, argv);
  const run = {
    ...taskRunEnv(ctx),
    ...(adapter.runsCommandLine && ctx.prompt !== undefined ? { [TASK_PROMPT_ENV]: ctx.prompt } : {}),
  };
  // Last, so a named environment can never make a run report as another task or run.
  // The instructions file is the run's (ctx.task set: the task's text), whichever files the harness replaced.
  const all = withFile(files, instructionsFile(harness, fresh));
  return { argv, env: sortKeys({ ...interactive.env, ...run }), files: all };
}

/** The cause a headless CLI printed for its failure, from the end of its output, or null (see each adapter's). */
export function headlessFailure(harness: Harness, tail: string): string | null {
  return HARNESSES[harness].headlessFailure?.(tail) ?? null;
}
