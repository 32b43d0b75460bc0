import fs from 'node:fs';
import path from 'node:path';
import type { Harness } from './types.js';
import type { CheckResult } from '../doctor/checks.js';

/** Where a harness keeps its login, and the environment variables that stand in for one. */
export interface LoginContext {
  /** The agent's environment: the daemon's, with the template's named environments and env on top. */
  env: Record<string, string | undefined>;
  /** The user's home (LEO_USER_HOME in tests). */
  home: string;
}

const exists = (file: string) => fs.existsSync(file);

/** The env var codex reads its key from: the configured model_provider's env_key, else OPENAI_API_KEY. */
export function codexKeyVariable(configToml: string | null): string {
  if (!configToml) return 'OPENAI_API_KEY';
  const provider = /^\s*model_provider\s*=\s*"([^"]+)"/m.exec(configToml)?.[1];
  if (!provider || provider === 'openai') return 'OPENAI_API_KEY';
  const section = configToml.split(/^\s*\[/m).find((s) => s.startsWith(`model_providers.${provider}]`)) ?? '';
  return /^\s*env_key\s*=\s*"([^"]+)"/m.exec(section)?.[1] ?? 'OPENAI_API_KEY';
}

/** How this harness would log in here, or null when nothing says it can. */
export function loginOf(harness: Exclude<Harness, 'shell'>, c: LoginContext): string | null {
  const set = (name: string) => (c.env[name] ? `${name} is set` : null);
  if (harness === 'claude') {
    const dir = c.env.CLAUDE_CONFIG_DIR;
    const files = dir
      ? [path.join(dir, '.claude.json'), path.join(dir, '.credentials.json')]
      : [path.join(c.home, '.claude.json'), path.join(c.home, '.claude', '.credentials.json')];
    return (
      set('ANTHROPIC_API_KEY') ??
      set('ANTHROPIC_AUTH_TOKEN') ??
      set('CLAUDE_CODE_OAUTH_TOKEN') ??
      files.filter(exists).map((f) => `${f} exists`)[0] ??
      null
    );
  }
  if (harness === 'codex') {
    const dir = c.env.CODEX_HOME || path.join(c.home, '.codex');
    const toml = path.join(dir, 'config.toml');
    const key = codexKeyVariable(exists(toml) ? fs.readFileSync(toml, 'utf8') : null);
    return set(key) ?? (exists(path.join(dir, 'auth.json')) ? `${path.join(dir, 'auth.json')} exists` : null);
  }
  const configDir = path.join(c.env.XDG_CONFIG_HOME || path.join(c.home, '.config'), 'opencode');
  const dataDir = path.join(c.env.XDG_DATA_HOME || path.join(c.home, '.local', 'share'), 'opencode');
  const files = [
    path.join(configDir, 'opencode.json'),
    path.join(configDir, 'opencode.jsonc'),
    path.join(dataDir, 'auth.json'),
  ];
  return files.filter(exists).map((f) => `${f} exists`)[0] ?? null;
}

const HOW: Record<Exclude<Harness, 'shell'>, string> = {
  claude: 'run `claude` once and log in, or put ANTHROPIC_API_KEY in an environment the template lists',
  codex:
    "run `codex login`, or put the provider's key (OPENAI_API_KEY, or its env_key) in an environment the template lists",
  opencode: 'run `opencode auth login`, or write ~/.config/opencode/opencode.json with a provider',
};

/**
 * Whether the templates using a harness can log in: one line per harness in use. Not required, since a login Leo
 * cannot see (a keychain, a proxy that adds the key) is still a login; the line says what was looked for.
 */
export function checkHarnessLogin(
  harness: Exclude<Harness, 'shell'>,
  templates: { name: string; env: Record<string, string | undefined> }[],
  home: string,
): CheckResult | null {
  if (!templates.length) return null;
  const name = `${harness} login`;
  const missing = templates.filter((t) => !loginOf(harness, { env: t.env, home }));
  if (missing.length)
    return {
      name,
      status: 'missing',
      detail: `no login or API key found for template(s) ${missing.map((t) => t.name).join(', ')}`,
      fix: HOW[harness],
      required: false,
    };
  const how = [...new Set(templates.map((t) => loginOf(harness, { env: t.env, home })))].join('; ');
  return { name, status: 'ok', detail: how, required: false };
}
