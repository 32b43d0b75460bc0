// Codex: Leo's MCP server is added with `-c` overrides on the command line instead of a per-agent CODEX_HOME. The
// user's CODEX_HOME holds their login (auth.json) and model provider; a separate home would lose both, and copying
// them would copy credentials. The overrides carry only the URL and the *name* of the env variable holding the token
// (bearer_token_env_var), so argv stays free of secrets and nothing is written anywhere. Measured against codex
// 0.169.0: Streamable HTTP via `url`, the token read from the named variable, every key accepted by --strict-config.
//
// Leo's hooks come in the same way (codexHookOverrides). Measured against codex 0.171.0 behind the scripted Responses
// server: `-c hooks.<Event>=[…]` is a config layer of its own ("session flags"), whose hooks load beside the user's
// (a user's own trusted Stop hook still runs); a non-managed hook runs only once trusted, and trust is read from
// `hooks.state."<key>".trusted_hash` in the session layer too, so `-c hooks.state={…}` trusts exactly Leo's handlers
// for exactly this process: no /hooks review dialog, nothing persisted, and the user's untrusted hooks stay skipped
// (which --dangerously-bypass-hook-trust would not do).
import crypto from 'node:crypto';
import { assertNoTokenInArgv, optionValue, sessionEnv, tomlString } from '../common.js';
import { hookCommand, hookTimeoutSeconds, installedHookEvents, type LeoHookEvent } from '../leo-hooks.js';
import { leoInstructions } from '../instructions.js';
import {
  AGENT_TOKEN_ENV,
  HARNESS_MCP_TOOL_TIMEOUT_MS,
  LEO_MCP_SERVER_NAME,
  type LaunchContext,
  type LaunchPlan,
} from '../types.js';

/** `key=value` pairs for `-c`; values are TOML, as codex parses them. */
export function codexConfigOverrides(ctx: LaunchContext): string[] {
  const server = `mcp_servers.${LEO_MCP_SERVER_NAME}`;
  return [
    // The TUI can stop on an update prompt at start-up; an unattended session has nobody to dismiss it.
    'check_for_update_on_startup=false',
    `${server}.url=${tomlString(ctx.leo.mcpUrl)}`,
    `${server}.bearer_token_env_var=${tomlString(AGENT_TOKEN_ENV)}`,
    // Codex asks before MCP tools whose annotations suggest side effects; Leo's own tools never need that.
    `${server}.default_tools_approval_mode=${tomlString('approve')}`,
    `${server}.tool_timeout_sec=${Math.ceil(HARNESS_MCP_TOOL_TIMEOUT_MS / 1000)}`,
    // Codex asks whether to trust a git workspace before anything else. Only the whole table can be overridden (a
    // quoted path segment in a dotted -c key is not honoured), and it is not persisted: the user's config.toml keeps
    // its own trust list, and this session only ever works in its workspace.
    `projects={${tomlString(ctx.workspace)}={trust_level=${tomlString('trusted')}}}`,
    // Leo's instructions. Measured with codex 0.171.0: sent as a `developer` message ahead of the conversation (and
    // kept in the rollout), beside the user's AGENTS.md files, which still apply; a developer_instructions of the
    // user's own config.toml is replaced for the session. The text holds no secret, so argv may show it.
    `developer_instructions=${tomlString(leoInstructions('codex', ctx))}`,
  ];
}

/**
 * Where Codex files a hook given with `-c` for its trust: `<source>:<event in snake_case>:<group>:<handler>`, the
 * source being the session-flags layer's stand-in path (as `codex app-server`'s hooks/list reports it).
 */
export function codexHookTrustKey(event: LeoHookEvent): string {
  return `/<session-flags>/config.toml:${snakeCase(event)}:0:0`;
}

/**
 * The hash Codex trusts a command hook by: SHA-256 of the handler's identity as compact JSON with sorted keys — the
 * event, the group's matcher (Leo's have none) and the handler with its defaults filled in. Changing the command or
 * the timeout changes the hash, and Codex then skips the hook until trusted again, so both come from one place.
 */
export function codexHookHash(event: LeoHookEvent, command: string, timeoutSec: number): string {
  const identity = `{"event_name":${JSON.stringify(snakeCase(event))},"hooks":[{"async":false,"command":${JSON.stringify(command)},"timeout":${timeoutSec},"type":"command"}]}`;
  return `sha256:${crypto.createHash('sha256').update(identity).digest('hex')}`;
}

/**
 * Leo's hook events Codex has. 0.171.0 has no StopFailure: a turn its provider refused ends with no hook at all, and
 * the reply watch finds it in the rollout once the agent's screen goes still.
 */
const CODEX_HOOK_EVENTS: readonly LeoHookEvent[] = ['SessionStart', 'UserPromptSubmit', 'PermissionRequest', 'Stop'];

/** `-c` overrides that install Leo's hooks (one group per event, no matcher: every tool) and trust exactly them. */
export function codexHookOverrides(ctx: LaunchContext): string[] {
  const overrides: string[] = [];
  const trust: string[] = [];
  for (const event of installedHookEvents(ctx, CODEX_HOOK_EVENTS)) {
    const command = hookCommand(ctx, event);
    const timeout = hookTimeoutSeconds(ctx, event);
    overrides.push(`hooks.${event}=[{hooks=[{type="command",command=${tomlString(command)},timeout=${timeout}}]}]`);
    trust.push(
      `${tomlString(codexHookTrustKey(event))}={trusted_hash=${tomlString(codexHookHash(event, command, timeout))}}`,
    );
  }
  return [...overrides, `hooks.state={${trust.join(',')}}`];
}

function snakeCase(event: string): string {
  return event.replace(/(?<!^)([A-Z])/g, '_$1').toLowerCase();
}

export function planCodex(ctx: LaunchContext): LaunchPlan {
  const argv = ['codex'];
  if (ctx.resume) {
    // `resume --last` is scoped to the workspace, skips headless `codex exec` runs, and starts fresh when there is
    // nothing to resume.
    argv.push('resume', ctx.resumeSessionId !== undefined ? optionValue('session id', ctx.resumeSessionId) : '--last');
  }
  // A TUI attaches to an already running shared codex server when there is one; that server would have another
  // session's env (LEO_AGENT, the token variable) and config, so each agent runs its own.
  argv.push('--no-daemon');
  for (const override of [...codexConfigOverrides(ctx), ...codexHookOverrides(ctx)]) argv.push('-c', override);
  if (ctx.model !== undefined) argv.push('--model', optionValue('model', ctx.model));
  if (ctx.permissions?.bypass_permissions === true) argv.push('--dangerously-bypass-approvals-and-sandbox');
  // permissions.allow has no codex equivalent (its approvals are a policy, not a per-tool list), so it is not applied.
  assertNoTokenInArgv(ctx, argv);
  return { argv, env: sessionEnv(ctx), files: [] };
}
