// An opencode task run: `opencode run` with the interactive options and the run's caller headers (see headless.ts).
import path from 'node:path';
import { jsonFile } from '../common.js';
import { taskHeaders, type HeadlessPart, type Prompted } from '../task-run.js';
import { LEO_MCP_SERVER_NAME, type LaunchPlan } from '../types.js';
import { OPENCODE_CONFIG_FILE, opencodeConfig } from './plan.js';

/**
 * `opencode run` with the interactive options (--model, --auto). opencode joins its message words with spaces and
 * wraps any word that holds a space in quotes, so the prompt goes in split at its spaces: joined back it is exactly
 * the prompt, unquoted. Its config file (OPENCODE_CONFIG, already in the env) gains the caller headers.
 */
export function opencodeHeadless(ctx: Prompted, interactive: LaunchPlan): HeadlessPart {
  // Leo's plugin stays out for the reason Claude's hooks do (claudeHeadless): it reports as the owner agent.
  const config = opencodeConfig(ctx, { plugin: false });
  const leo = config.mcp[LEO_MCP_SERVER_NAME]!;
  leo.headers = { ...leo.headers, ...taskHeaders((name) => `{env:${name}}`) };
  return {
    argv: ['opencode', 'run', ...interactive.argv.slice(1), '--', ...ctx.prompt.split(' ')],
    files: [jsonFile(path.join(ctx.leo.agentDir, OPENCODE_CONFIG_FILE), config)],
  };
}
