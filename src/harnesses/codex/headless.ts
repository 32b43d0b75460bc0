// A Codex task run: `codex exec` with the interactive overrides and the run's caller headers (see headless.ts).
import { optionValue, tomlString } from '../common.js';
import { taskHeaders, type HeadlessPart, type Prompted } from '../task-run.js';
import { LEO_MCP_SERVER_NAME } from '../types.js';
import { codexConfigOverrides } from './plan.js';

/**
 * `codex exec`, with the interactive adapter's `-c` overrides plus env_http_headers (header → name of the variable
 * holding its value). --no-daemon stays out: it is the TUI's guard against a shared app server, not an exec option.
 * Without --skip-git-repo-check exec refuses a workspace that is not a git repository. A prompt of `-` alone would
 * make codex read the prompt from stdin, which a run does not have.
 */
export function codexHeadless(ctx: Prompted): HeadlessPart {
  if (ctx.prompt === '-') throw new Error('invalid task prompt "-": codex reads that as "prompt on stdin"');
  const headers = Object.entries(taskHeaders(tomlString))
    .map(([header, name]) => `${tomlString(header)}=${name}`)
    .join(',');
  const overrides = [...codexConfigOverrides(ctx), `mcp_servers.${LEO_MCP_SERVER_NAME}.env_http_headers={${headers}}`];
  const argv = ['codex', 'exec', '--skip-git-repo-check', ...overrides.flatMap((o) => ['-c', o])];
  if (ctx.model !== undefined) argv.push('--model', optionValue('model', ctx.model));
  if (ctx.permissions?.bypass_permissions === true) argv.push('--dangerously-bypass-approvals-and-sandbox');
  return { argv: [...argv, '--', ctx.prompt], files: [] };
}

/**
 * The cause a headless CLI printed for its failure, from the end of its output, or null. `codex exec` 0.171.0 prints
 * its banner first and, when the turn fails, `ERROR: <message>` last (the message is the provider's error body,
 * `{"error":{"message":…}}`, when it sent one); the last such line is the cause.
 */
export function codexHeadlessFailure(tail: string): string | null {
  const line = tail
    .split('\n')
    .reverse()
    .find((l) => l.startsWith('ERROR: '));
  if (line === undefined) return null;
  const text = line.slice('ERROR: '.length).trim();
  try {
    const message = (JSON.parse(text) as { error?: { message?: unknown } }).error?.message;
    if (typeof message === 'string' && message.trim()) return message.trim();
  } catch {
    // Not the provider's JSON: the line says it in words.
  }
  return text || null;
}
