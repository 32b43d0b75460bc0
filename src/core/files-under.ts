import fs from 'node:fs';
import path from 'node:path';

/** The regular files under `dir`, relative to it, `/`-separated, sorted; none when it does not exist. */
export function filesUnder(dir: string): string[] {
  let names: string[];
  try {
    names = fs.readdirSync(dir, { recursive: true, encoding: 'utf8' });
  } catch {
    return [];
  }
  return names
    .filter((n) => fs.lstatSync(path.join(dir, n)).isFile())
    .map((n) => n.split(path.sep).join('/'))
    .sort();
}
