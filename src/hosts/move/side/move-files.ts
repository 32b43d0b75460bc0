import fs from 'node:fs';
import path from 'node:path';

// A move's folder on each side (<state>/moves/<id>/) holds its records as small JSON files, each written whole or not
// at all: a daemon killed mid-write leaves the previous version, never half of one.

/** The file's JSON, or null when there is none (or it cannot be read: nothing of the move was recorded there). */
export function readJson<T>(file: string): T | null {
  try {
    return JSON.parse(fs.readFileSync(file, 'utf8')) as T;
  } catch {
    return null;
  }
}

/** Writes `value` to `file` through a temporary name beside it, creating its folder. */
export function writeJsonAtomic(file: string, value: unknown): void {
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const tmp = `${file}.tmp`;
  fs.writeFileSync(tmp, `${JSON.stringify(value)}\n`, { mode: 0o600 });
  fs.renameSync(tmp, file);
}
