// The hooks Leo installs in every harness that has command hooks (Claude Code, Codex): which events, the
// `leo hook <arg>` each one runs, and how long each may take. Each adapter writes them in its own CLI's shape.
import { shellQuote } from './common.js';
import type { LaunchContext } from './types.js';

/**
 * The hook events Leo installs, in lifecycle order, with the `leo hook <arg>` each one runs.
 * - SessionStart: the session_id and transcript_path of a new, resumed or cleared conversation, so a restart can
 *   resume exactly this agent's conversation and the daemon knows the session is up.
 * - UserPromptSubmit: which prompt a turn started with, as it happens, so the Stop-time reply capture can tell a
 *   delivered [Leo Chat] message from a task or a typed prompt that took the turn over.
 * - PermissionRequest: permission prompts (and Claude's AskUserQuestion cards) in chat; not installed with
 *   bypass_permissions.
 * - Stop: the end of a turn, when the daemon captures the reply.
 * - StopFailure (Claude only): the end of a turn that failed (no key, the provider refused or erred), which sends no
 *   Stop; the daemon reads the failure from the transcript and says so in the thread. Measured with claude 2.1.328:
 *   its input has `prompt_id`, `error` ("authentication_failed", "server_error") and `last_assistant_message`
 *   (Claude's words: "Not logged in · Please run /login").
 * SessionStart and UserPromptSubmit add whatever their hook prints to the model's context (both CLIs), so `leo hook`
 * must print nothing for them.
 */
export const LEO_HOOK_EVENTS = [
  'SessionStart',
  'UserPromptSubmit',
  'PermissionRequest',
  'Stop',
  'StopFailure',
] as const;
export type LeoHookEvent = (typeof LEO_HOOK_EVENTS)[number];

export const LEO_HOOK_ARGS: Record<LeoHookEvent, string> = {
  SessionStart: 'session-start',
  UserPromptSubmit: 'user-prompt-submit',
  PermissionRequest: 'permission-request',
  Stop: 'stop',
  StopFailure: 'stop-failure',
};

/** Hook timeouts are in seconds. The quick hooks only hand their input to the daemon and return. */
export const QUICK_HOOK_TIMEOUT_S = 30;
const DEFAULT_PERMISSION_WAIT_MS = 60 * 60 * 1000;
/** Slack over Leo's own deadline, so the daemon answers "no decision" before the CLI kills the hook. */
const PERMISSION_HOOK_SLACK_S = 60;

/** `<nodeBin> <leoBin> hook <event>`, shell-quoted: both CLIs run command hooks through a shell. */
export function hookCommand(ctx: LaunchContext, event: LeoHookEvent): string {
  return [ctx.leo.nodeBin, ctx.leo.leoBin, 'hook', LEO_HOOK_ARGS[event]].map(shellQuote).join(' ');
}

export function hookCommands(ctx: LaunchContext): Record<LeoHookEvent, string> {
  const out = {} as Record<LeoHookEvent, string>;
  for (const event of LEO_HOOK_EVENTS) out[event] = hookCommand(ctx, event);
  return out;
}

export function permissionHookTimeoutSeconds(ctx: LaunchContext): number {
  const waitMs = ctx.permissionWaitMs ?? DEFAULT_PERMISSION_WAIT_MS;
  if (!Number.isFinite(waitMs) || waitMs <= 0) throw new Error(`invalid permissionWaitMs ${waitMs}`);
  return Math.ceil(waitMs / 1000) + PERMISSION_HOOK_SLACK_S;
}

/**
 * The events installed for this agent, of those its CLI has (`supported`): with bypass the CLI never asks, and prompts
 * nobody needs would confuse.
 */
export function installedHookEvents(ctx: LaunchContext, supported: readonly LeoHookEvent[]): LeoHookEvent[] {
  const bypass = ctx.permissions?.bypass_permissions === true;
  return supported.filter((event) => !(event === 'PermissionRequest' && bypass));
}

export function hookTimeoutSeconds(ctx: LaunchContext, event: LeoHookEvent): number {
  return event === 'PermissionRequest' ? permissionHookTimeoutSeconds(ctx) : QUICK_HOOK_TIMEOUT_S;
}
