// Any other CLI: the template's command runs under /bin/sh in the workspace, with the same LEO_* environment, so a
// script can still reach Leo (LEO_MCP_URL with LEO_AGENT_TOKEN, or LEO_SOCKET).
import { sessionEnv } from '../common.js';
import type { LaunchContext, LaunchPlan } from '../types.js';

export function planShell(ctx: LaunchContext): LaunchPlan {
  if (ctx.command === undefined || ctx.command.trim() === '') throw new Error('the shell harness needs a command');
  // The command is the user's own text, so it is not checked for the token: they may pass $LEO_AGENT_TOKEN by name,
  // and anything literal in it was already in their config file.
  return { argv: ['/bin/sh', '-c', ctx.command], env: sessionEnv(ctx), files: [] };
}
