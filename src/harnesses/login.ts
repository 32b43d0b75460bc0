// Whether a harness can log in where its agents run: each adapter's `login` looks, `leo doctor` reports.
import type { CheckResult } from '../wire/check-result.js';
import { HARNESSES } from './index.js';
import type { Harness } from './types.js';

/**
 * Whether the templates using a harness can log in: one line per harness in use. Not required, since a login Leo
 * cannot see (a keychain, a proxy that adds the key) is still a login; the line says what was looked for.
 */
export function checkHarnessLogin(
  harness: Harness,
  templates: { name: string; env: Record<string, string | undefined> }[],
  home: string,
): CheckResult | null {
  const login = HARNESSES[harness].login;
  if (!login || !templates.length) return null;
  const name = `${harness} login`;
  const missing = templates.filter((t) => !login.find({ env: t.env, home }));
  if (missing.length)
    return {
      name,
      status: 'missing',
      detail: `no login or API key found for template(s) ${missing.map((t) => t.name).join(', ')}`,
      fix: login.how,
      required: false,
    };
  const how = [...new Set(templates.map((t) => login.find({ env: t.env, home })))].join('; ');
  return { name, status: 'ok', detail: how, required: false };
}
