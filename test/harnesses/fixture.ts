import assert from 'node:assert/strict';
import type { LaunchContext, LaunchPlan } from '../../src/harnesses/launch.js';

export const TOKEN = 'leo_agent_tok_0123456789abcdefSECRET';
export const AGENT_DIR = '/home/alice/.leo/state/agents/den';
export const WORKSPACE = '/home/alice/.leo/agents/leo-den';
export const MCP_URL = 'http://127.0.0.1:8370/api/agent/den/mcp';

export const LEO_KEYS = ['LEO_AGENT', 'LEO_AGENT_TOKEN', 'LEO_HOME', 'LEO_MCP_URL', 'LEO_SOCKET'];

export function makeCtx(over: Partial<LaunchContext> = {}): LaunchContext {
  return {
    agent: 'den',
    workspace: WORKSPACE,
    env: { ANTHROPIC_API_KEY: 'sk-ant-api03-SECRETSECRETSECRET', GITHUB_TOKEN: 'ghp_SECRETSECRETSECRET' },
    leo: {
      home: '/home/alice/.leo',
      agentDir: AGENT_DIR,
      mcpUrl: MCP_URL,
      agentToken: TOKEN,
      leoBin: '/opt/leo/bin/leo.js',
      nodeBin: '/usr/local/bin/node',
      socketPath: '/home/alice/.leo/state/leo.sock',
    },
    ...over,
  };
}

/** Every secret the context holds: the agent token and each named-environment value. */
export function secretsOf(ctx: LaunchContext): string[] {
  return [ctx.leo.agentToken, ...Object.values(ctx.env)];
}

/** No secret in argv (visible in `ps`) nor in any generated file. */
export function assertNoSecrets(plan: LaunchPlan, ctx: LaunchContext): void {
  for (const secret of secretsOf(ctx)) {
    for (const arg of plan.argv) assert.ok(!arg.includes(secret), `secret in argv: ${arg}`);
    for (const file of plan.files) assert.ok(!file.content.includes(secret), `secret in ${file.path}`);
  }
}

export function fileAt(plan: LaunchPlan, path: string) {
  const file = plan.files.find((f) => f.path === path);
  assert.ok(file, `no planned file ${path}; have ${plan.files.map((f) => f.path).join(', ')}`);
  return file;
}
