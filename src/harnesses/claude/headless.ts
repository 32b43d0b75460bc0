// A Claude task run: `claude -p`, Leo's hooks replaced by one that keeps the run's Stop payloads (see headless.ts).
import path from 'node:path';
import { jsonFile, shellQuote } from '../common.js';
import { RUN_STOPS_FILE, taskHeaders, type HeadlessPart, type Prompted } from '../task-run.js';
import { LEO_MCP_SERVER_NAME, type LaunchPlan } from '../types.js';
import { CLAUDE_MCP_CONFIG_FILE, CLAUDE_SETTINGS_FILE, claudeMcpConfig, claudeSettings } from './plan.js';

/**
 * `claude -p` with the interactive options (settings, MCP config, permission mode, model): with resume off they are
 * all options, so the prompt can follow them. `--` also ends --mcp-config, which takes several values and would
 * otherwise read the prompt as one more config file.
 */
export function claudeHeadless(ctx: Prompted, interactive: LaunchPlan): HeadlessPart {
  // Leo's hooks stay out: they report as the owner agent (LEO_AGENT), so a run's SessionStart would replace the
  // agent's resumable session and its Stop would post the run's last message as the agent's reply. Without the
  // PermissionRequest hook, `-p` denies what the allow rules (mcp__leo always among them) do not cover. The run's own
  // Stop payloads (transcript path, prompt id) are kept in its folder instead, one line each, for its usage.
  const stops = shellQuote(path.join(ctx.leo.agentDir, RUN_STOPS_FILE));
  const settings = {
    ...claudeSettings(ctx),
    hooks: { Stop: [{ hooks: [{ type: 'command', command: `{ cat; echo; } >> ${stops}` }] }] },
  };
  const mcp = claudeMcpConfig(ctx);
  const leo = mcp.mcpServers[LEO_MCP_SERVER_NAME]!;
  leo.headers = { ...leo.headers, ...taskHeaders((name) => `\${${name}}`) };
  return {
    argv: ['claude', '-p', '--output-format', 'text', ...interactive.argv.slice(1), '--', ctx.prompt],
    files: [
      jsonFile(path.join(ctx.leo.agentDir, CLAUDE_SETTINGS_FILE), settings),
      jsonFile(path.join(ctx.leo.agentDir, CLAUDE_MCP_CONFIG_FILE), mcp),
    ],
  };
}
