// Claude Code: hooks and Leo's MCP server come in through --settings and --mcp-config files under the agent's state
// dir, so nothing is written into the workspace or the user's ~/.claude. Measured against claude 2.1.328 behind a
// scripted API server: hooks from --settings fire without approval and inherit the session env; ${VAR} in an
// --mcp-config header is expanded from that env; `permissions.allow` in --settings (`mcp__leo`, `Bash(touch:*)`)
// skips the PermissionRequest hook; bypassPermissions shows no dialog with skipDangerousModePermissionPrompt in
// --settings, and refuses to start at all as root (both bypass spellings).
import path from 'node:path';
import { assertNoTokenInArgv, jsonFile, optionValue, sessionEnv } from '../common.js';
import {
  hookCommand,
  hookTimeoutSeconds,
  installedHookEvents,
  LEO_HOOK_EVENTS,
  type LeoHookEvent,
} from '../leo-hooks.js';
import { instructionsPath } from '../instructions.js';
import {
  AGENT_TOKEN_ENV,
  HARNESS_MCP_TOOL_TIMEOUT_MS,
  LEO_MCP_SERVER_NAME,
  type LaunchContext,
  type LaunchPlan,
} from '../types.js';

export const CLAUDE_SETTINGS_FILE = 'claude-settings.json';
export const CLAUDE_MCP_CONFIG_FILE = 'mcp.json';

export interface ClaudeCommandHook {
  type: 'command';
  command: string;
  timeout: number;
}

export interface ClaudeSettings {
  hooks: Partial<Record<LeoHookEvent, { hooks: ClaudeCommandHook[] }[]>>;
  permissions: { allow: string[] };
  /** Without it, bypassPermissions opens a "No, exit"-by-default warning dialog that an unattended session cannot pass. */
  skipDangerousModePermissionPrompt?: true;
}

export interface ClaudeMcpConfig {
  mcpServers: Record<string, { type: 'http'; url: string; headers: Record<string, string> }>;
}

function bypass(ctx: LaunchContext): boolean {
  return ctx.permissions?.bypass_permissions === true;
}

export function claudeSettings(ctx: LaunchContext): ClaudeSettings {
  const hooks: ClaudeSettings['hooks'] = {};
  for (const event of installedHookEvents(ctx, LEO_HOOK_EVENTS)) {
    hooks[event] = [
      { hooks: [{ type: 'command', command: hookCommand(ctx, event), timeout: hookTimeoutSeconds(ctx, event) }] },
    ];
  }
  // Leo's own tools are always allowed: otherwise every leo_chat_post would itself raise a permission prompt.
  // The template's allow rules go in the settings file rather than --allowedTools: that option takes a variable number
  // of values, and rules such as `Bash(git commit:*)` hold spaces; the settings file carries them verbatim.
  const allow = [`mcp__${LEO_MCP_SERVER_NAME}`, ...(ctx.permissions?.allow ?? [])];
  const settings: ClaudeSettings = { hooks, permissions: { allow: [...new Set(allow)] } };
  if (bypass(ctx)) settings.skipDangerousModePermissionPrompt = true;
  return settings;
}

/** The token stays out of the file: Claude expands ${VAR} in --mcp-config headers from its own environment. */
export function claudeMcpConfig(ctx: LaunchContext): ClaudeMcpConfig {
  return {
    mcpServers: {
      [LEO_MCP_SERVER_NAME]: {
        type: 'http',
        url: ctx.leo.mcpUrl,
        headers: { Authorization: `Bearer \${${AGENT_TOKEN_ENV}}` },
      },
    },
  };
}

/**
 * `$CLAUDE_CONFIG_DIR/.claude.json` for a fresh config dir, without which interactive Claude exits on an onboarding
 * check and then stops on dialogs whose defaults exit. The API key is approved by its last 20 characters, as Claude
 * records it, so the file still holds part of a secret: write it 0600.
 */
export function claudeOnboardingSeed(workspace: string, apiKey?: string): string {
  const seed = {
    hasCompletedOnboarding: true,
    theme: 'dark',
    ...(apiKey ? { customApiKeyResponses: { approved: [apiKey.slice(-20)], rejected: [] } } : {}),
    projects: { [workspace]: { hasTrustDialogAccepted: true } },
  };
  return JSON.stringify(seed, null, 2) + '\n';
}

export function planClaude(ctx: LaunchContext): LaunchPlan {
  const settingsPath = path.join(ctx.leo.agentDir, CLAUDE_SETTINGS_FILE);
  const mcpPath = path.join(ctx.leo.agentDir, CLAUDE_MCP_CONFIG_FILE);
  const argv = ['claude', '--settings', settingsPath, '--mcp-config', mcpPath];
  // "default" (shown as "manual" by recent versions), never the implicit "auto": auto needs a server-side safety
  // check and the PermissionRequest hook never fires in it.
  argv.push('--permission-mode', bypass(ctx) ? 'bypassPermissions' : 'default');
  if (ctx.model !== undefined) argv.push('--model', optionValue('model', ctx.model));
  // Only a conversation known to exist is resumed: `--continue` with none, or `--resume` of one never written, exits 1
  // at once ("No conversation found to continue"), and every restart would do the same.
  if (ctx.resume && ctx.resumeSessionId !== undefined)
    argv.push('--resume', optionValue('session id', ctx.resumeSessionId));
  // Leo's instructions (planLaunch writes the file), appended to Claude's own system prompt: the user's CLAUDE.md
  // files and settings still apply. Measured with claude 2.1.328: the file's text is in every request's `system`.
  argv.push('--append-system-prompt-file', instructionsPath(ctx));
  assertNoTokenInArgv(ctx, argv);
  return {
    argv,
    env: sessionEnv(
      ctx,
      // No telemetry or update checks from an unattended session, and no self-update under a running agent.
      { CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1', DISABLE_AUTOUPDATER: '1' },
      // Not left to a named environment: a shorter value would cut leo_chat_ask's waits short.
      { MCP_TOOL_TIMEOUT: String(HARNESS_MCP_TOOL_TIMEOUT_MS) },
    ),
    files: [jsonFile(settingsPath, claudeSettings(ctx)), jsonFile(mcpPath, claudeMcpConfig(ctx))],
  };
}
