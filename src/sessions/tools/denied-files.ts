import type { Stats } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';

/**
 * Whether `target` (the stats of a path already found outside every denied root) is nevertheless one of the files
 * under a denied root: a hard link gives a file a second name, which no path check sees. A file with one link has
 * only the name already judged, so the denied roots are searched only for a regular file with more than one link on
 * their own device (hard links cannot cross devices) — rare outside pnpm stores and local git clones, so the cost of
 * walking the state folder is paid almost never. Symlinks inside the roots are not followed: a link in the state
 * folder pointing elsewhere does not make its target secret.
 */
export async function isDeniedFile(target: Stats, deniedRoots: readonly string[]): Promise<boolean> {
  if (!target.isFile() || target.nlink < 2) return false;
  for (const root of deniedRoots) {
    const st = await fs.lstat(root).catch(() => null);
    if (!st || st.dev !== target.dev) continue;
    if (st.isFile()) {
      if (st.ino === target.ino) return true;
      continue;
    }
    if (!st.isDirectory()) continue;
    const entries = await fs.readdir(root, { recursive: true, withFileTypes: true }).catch(() => []);
    for (const e of entries) {
      if (!e.isFile()) continue;
      const file = await fs.lstat(path.join(e.parentPath ?? e.path, e.name)).catch(() => null);
      if (file && file.ino === target.ino && file.dev === target.dev) return true;
    }
  }
  return false;
}
