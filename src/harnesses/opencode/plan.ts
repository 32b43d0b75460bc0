// opencode: Leo's MCP server and Leo's plugin come in through a config file named by OPENCODE_CONFIG, which opencode
// merges over the user's global config (their providers and models stay) and under the workspace's own opencode.json.
// Measured against opencode 1.18.33: the V1 `mcp.<name>` shape (V2 docs move servers under `mcp.servers`, which 1.18
// does not read), `{env:VAR}` expanded in headers, the TUI accepting --continue, --session and --auto, and `plugin`
// entries given as absolute paths of .js files loaded as they are (no install), alongside the user's own plugins.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { assertNoTokenInArgv, jsonFile, optionValue, sessionEnv } from '../common.js';
import { instructionsPath } from '../instructions.js';
import { TRANSCRIPTS_ENV } from './opencode-plugin/protocol.js';
import {
  AGENT_TOKEN_ENV,
  HARNESS_MCP_TOOL_TIMEOUT_MS,
  LEO_MCP_SERVER_NAME,
  type LaunchContext,
  type LaunchPlan,
} from '../types.js';

export const OPENCODE_CONFIG_FILE = 'opencode.json';
/** Under the agent's state dir: the transcripts Leo's plugin writes, one per opencode session. */
export const OPENCODE_TRANSCRIPTS_DIR = 'opencode-sessions';
/** Leo's plugin as built (leo-plugin.ts compiled next to this file's own build). */
export const OPENCODE_PLUGIN_PATH = fileURLToPath(new URL('./opencode-plugin/leo-plugin.js', import.meta.url));

export interface OpencodeConfig {
  $schema: string;
  instructions: string[];
  /** Leo's plugin; left out of a task run's config, whose turn reports would be taken for the owner agent's. */
  plugin?: string[];
  mcp: Record<
    string,
    { type: 'remote'; url: string; headers: Record<string, string>; oauth: false; enabled: true; timeout: number }
  >;
}

export function opencodeConfig(ctx: LaunchContext, opts: { plugin?: boolean } = {}): OpencodeConfig {
  return {
    $schema: 'https://opencode.ai/config.json',
    // Leo's instructions file (planLaunch writes it). Measured with opencode 1.18.33: instruction lists are merged
    // across configs, so the user's own `instructions` still reach the model beside Leo's.
    instructions: [instructionsPath(ctx)],
    ...(opts.plugin === false ? {} : { plugin: [OPENCODE_PLUGIN_PATH] }),
    mcp: {
      [LEO_MCP_SERVER_NAME]: {
        type: 'remote',
        url: ctx.leo.mcpUrl,
        // opencode substitutes {env:VAR} when it loads the file, so the token stays in the environment.
        headers: { Authorization: `Bearer {env:${AGENT_TOKEN_ENV}}` },
        // A 401 from a stopped-and-restarted daemon must not send opencode into an OAuth discovery dance.
        oauth: false,
        enabled: true,
        // Milliseconds, and it bounds tool calls too: the 5 s default would cut every leo_chat_ask short.
        timeout: HARNESS_MCP_TOOL_TIMEOUT_MS,
      },
    },
  };
}

export function planOpencode(ctx: LaunchContext): LaunchPlan {
  const configPath = path.join(ctx.leo.agentDir, OPENCODE_CONFIG_FILE);
  const argv = ['opencode'];
  if (ctx.model !== undefined) argv.push('--model', optionValue('model', ctx.model));
  if (ctx.resume) {
    if (ctx.resumeSessionId !== undefined) argv.push('--session', optionValue('session id', ctx.resumeSessionId));
    else argv.push('--continue');
  }
  if (ctx.permissions?.bypass_permissions === true) argv.push('--auto');
  // permissions.allow is written in Claude's rule syntax; opencode's permission patterns differ enough that a
  // translation would silently allow the wrong things, so it is not applied.
  assertNoTokenInArgv(ctx, argv);
  return {
    argv,
    // A self-update mid-session would swap the binary under a running agent, as DISABLE_AUTOUPDATER guards for Claude.
    // OPENCODE_CONFIG replaces one a named environment may set: opencode reads only one such file.
    env: sessionEnv(
      ctx,
      { OPENCODE_DISABLE_AUTOUPDATE: '1' },
      { OPENCODE_CONFIG: configPath, [TRANSCRIPTS_ENV]: path.join(ctx.leo.agentDir, OPENCODE_TRANSCRIPTS_DIR) },
    ),
    files: [jsonFile(configPath, opencodeConfig(ctx))],
  };
}
