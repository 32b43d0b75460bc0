// Whether Codex can log in here: the key its configured provider reads, or its own login file.
import fs from 'node:fs';
import path from 'node:path';
import type { HarnessLogin } from '../adapter.js';

/** The env var codex reads its key from: the configured model_provider's env_key, else OPENAI_API_KEY. */
export function codexKeyVariable(configToml: string | null): string {
  if (!configToml) return 'OPENAI_API_KEY';
  const provider = /^\s*model_provider\s*=\s*"([^"]+)"/m.exec(configToml)?.[1];
  if (!provider || provider === 'openai') return 'OPENAI_API_KEY';
  const section = configToml.split(/^\s*\[/m).find((s) => s.startsWith(`model_providers.${provider}]`)) ?? '';
  return /^\s*env_key\s*=\s*"([^"]+)"/m.exec(section)?.[1] ?? 'OPENAI_API_KEY';
}

export const codexLogin: HarnessLogin = {
  find(c) {
    const dir = c.env.CODEX_HOME || path.join(c.home, '.codex');
    const toml = path.join(dir, 'config.toml');
    const key = codexKeyVariable(fs.existsSync(toml) ? fs.readFileSync(toml, 'utf8') : null);
    if (c.env[key]) return `${key} is set`;
    return fs.existsSync(path.join(dir, 'auth.json')) ? `${path.join(dir, 'auth.json')} exists` : null;
  },
  how: "run `codex login`, or put the provider's key (OPENAI_API_KEY, or its env_key) in an environment the template lists",
};
