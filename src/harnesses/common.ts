// Small pieces every adapter shares: the LEO_* environment, env merging, argv safety and the quoting of the few
// strings that end up in a shell command line or a TOML value.
import { AGENT_TOKEN_ENV, type LaunchContext, type PlannedFile } from './types.js';

/** Generated files are private to the user: settings and MCP configs name the daemon's endpoints. */
export const FILE_MODE = 0o600;

/** The variables every session gets, whatever the harness, so any CLI inside it can reach Leo. */
export function leoEnv(ctx: LaunchContext): Record<string, string> {
  return {
    LEO_AGENT: ctx.agent,
    [AGENT_TOKEN_ENV]: ctx.leo.agentToken,
    LEO_HOME: ctx.leo.home,
    LEO_MCP_URL: ctx.leo.mcpUrl,
    LEO_SOCKET: ctx.leo.socketPath,
  };
}

/**
 * The session env: the harness's defaults, then the user's named environments (which may override those defaults),
 * then what the harness cannot work without, then the LEO_* variables, which nothing overrides so an agent can never
 * be told it is someone else. Keys come out sorted so a plan compares equal run to run.
 */
export function sessionEnv(
  ctx: LaunchContext,
  defaults: Record<string, string> = {},
  required: Record<string, string> = {},
): Record<string, string> {
  return sortKeys({ ...defaults, ...ctx.env, ...required, ...leoEnv(ctx) });
}

export function sortKeys(env: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const key of Object.keys(env).sort()) out[key] = env[key] as string;
  return out;
}

export function jsonFile(path: string, value: unknown): PlannedFile {
  return { path, content: JSON.stringify(value, null, 2) + '\n', mode: FILE_MODE };
}

/**
 * An option value must not look like an option itself (CLI parsers would read `--model -x` as a flag) and must be
 * one line. Values come from config, so this guards typos, not attackers.
 */
export function optionValue(name: string, value: string): string {
  if (value === '' || value.startsWith('-') || /[\0\r\n]/.test(value)) {
    throw new Error(`invalid ${name} ${JSON.stringify(value)}`);
  }
  return value;
}

/**
 * Real agent tokens are 256 random bits; anything this short is a stand-in, and finding it inside an argument would
 * be a coincidence rather than a leak.
 */
const MIN_GUARDED_TOKEN_LENGTH = 16;

/** The agent token is the one secret an adapter itself holds; refuse any plan that would show it in `ps`. */
export function assertNoTokenInArgv(ctx: LaunchContext, argv: readonly string[]): void {
  const token = ctx.leo.agentToken;
  if (token.length >= MIN_GUARDED_TOKEN_LENGTH && argv.some((a) => a.includes(token))) {
    throw new Error('launch plan would put the agent token in argv');
  }
}

/** POSIX shell quoting for hook command lines; plain words are left bare so the settings file stays readable. */
export function shellQuote(word: string): string {
  if (/^[A-Za-z0-9_@%+=:,./-]+$/.test(word)) return word;
  return `'${word.replace(/'/g, `'\\''`)}'`;
}

/** A TOML basic string. */
export function tomlString(value: string): string {
  let out = '"';
  for (const ch of value) {
    const code = ch.codePointAt(0) as number;
    if (ch === '"') out += '\\"';
    else if (ch === '\\') out += '\\\\';
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (code < 0x20 || code === 0x7f) out += `\\u${code.toString(16).padStart(4, '0')}`;
    else out += ch;
  }
  return out + '"';
}
