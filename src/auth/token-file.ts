import fs from 'node:fs';
import path from 'node:path';
import { newToken } from './secrets.js';

/**
 * Reads a token file, creating it (0600, in a 0700 folder) on first use. The file is written under a temp name and
 * linked into place so a concurrent first start by the CLI and the daemon cannot end with two different tokens.
 */
export function ensureTokenFile(file: string, prefix: string): string {
  const existing = readTokenFile(file);
  if (existing) return existing;
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, `${newToken(prefix)}\n`, { mode: 0o600 });
  try {
    fs.linkSync(tmp, file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  } finally {
    fs.unlinkSync(tmp);
  }
  const token = readTokenFile(file);
  if (!token) throw new Error(`${file} is empty`);
  return token;
}

export function readTokenFile(file: string): string | null {
  try {
    return fs.readFileSync(file, 'utf8').trim() || null;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
}
