import fs from 'node:fs';
import { parseDocument } from 'yaml';
import { parseConfig } from './load.js';

/**
 * Rewrites one top-level key of leo.yaml, keeping the rest of the file (comments included) as it was. The candidate
 * text is validated with the same loader the daemon uses before it replaces the file (write to a temp name, rename),
 * so an API write can never leave a config the daemon would refuse.
 */
export function replaceTopLevelKey(
  file: string,
  key: string,
  value: unknown,
  home: string,
): { ok: true } | { ok: false; errors: string[] } {
  const text = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
  const doc = parseDocument(text);
  if (doc.errors.length) return { ok: false, errors: doc.errors.map((e) => e.message) };
  // An empty file parses to a null document; setIn() on it creates the top-level map.
  doc.setIn([key], value);
  const next = doc.toString();
  const checked = parseConfig(next, { file, home });
  if (!checked.ok) return { ok: false, errors: checked.errors };
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, next, { mode: fs.existsSync(file) ? fs.statSync(file).mode & 0o777 : 0o600 });
  fs.renameSync(tmp, file);
  return { ok: true };
}
