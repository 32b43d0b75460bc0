// planLaunch: one harness's launch, as data. The daemon writes `files`, then starts `argv` with `env` in a tmux session
// in the workspace.
import { HARNESSES } from './index.js';
import { harnessProgram } from './program.js';
import { sortKeys } from './common.js';
import { INSTRUCTIONS_ENV, instructionsFile } from './instructions.js';
import type { Harness, LaunchContext, LaunchPlan, PlannedFile } from './types.js';

export function planLaunch(harness: Harness, ctx: LaunchContext): LaunchPlan {
  const planned = HARNESSES[harness].plan(ctx);
  // Every session gets Leo's instructions as a file LEO_INSTRUCTIONS names (a script's only way to read them); the
  // adapters hand the same text to their CLI's own instructions mechanism. Set last, like the other LEO_* variables.
  const instructions = instructionsFile(harness, ctx);
  const plan = {
    ...planned,
    env: sortKeys({ ...planned.env, [INSTRUCTIONS_ENV]: instructions.path }),
    files: withFile(planned.files, instructions),
  };
  // A non-shell template's command names the program to run instead of the harness's CLI (config validates it is
  // one word); everything else about the launch stays the harness's.
  const program = harnessProgram(harness, ctx.command ?? null);
  return program === null ? plan : { ...plan, argv: [program, ...plan.argv.slice(1)] };
}

/**
 * What the agent's thread should say as its session starts, when this start will be slow for a reason of the
 * harness's own (read before the session starts, which may change it), else null.
 */
export function startNote(harness: Harness, env: NodeJS.ProcessEnv, workspace: string): string | null {
  return HARNESSES[harness].startNote?.(env, workspace) ?? null;
}

/** `files` with `file` in it, in place of any planned at the same path. */
export function withFile(files: readonly PlannedFile[], file: PlannedFile): PlannedFile[] {
  return [...files.filter((f) => f.path !== file.path), file];
}

export {
  CLAUDE_MCP_CONFIG_FILE,
  CLAUDE_SETTINGS_FILE,
  claudeMcpConfig,
  claudeOnboardingSeed,
  claudeSettings,
  planClaude,
  type ClaudeMcpConfig,
  type ClaudeSettings,
} from './claude/plan.js';
export {
  LEO_HOOK_ARGS,
  LEO_HOOK_EVENTS,
  hookCommand,
  hookCommands,
  permissionHookTimeoutSeconds,
  type LeoHookEvent,
} from './leo-hooks.js';
export { codexConfigOverrides, codexHookHash, codexHookOverrides, codexHookTrustKey, planCodex } from './codex/plan.js';
export { OPENCODE_CONFIG_FILE, opencodeConfig, planOpencode, type OpencodeConfig } from './opencode/plan.js';
export { planShell } from './shell/plan.js';
export { checkHarnessProgram, harnessProgram } from './program.js';
export {
  AGENT_TOKEN_ENV,
  HARNESS_MCP_TOOL_TIMEOUT_MS,
  LEO_MCP_SERVER_NAME,
  LEO_MCP_TOOL_CEILING_MS,
  type Harness,
  type LaunchContext,
  type LaunchPlan,
  type LeoLaunchInfo,
  type PlannedFile,
} from './types.js';
