import fs from 'node:fs/promises';
import path from 'node:path';

/**
 * Deletes attachment files (and their per-attachment folders) that outlived the retention. Each path must sit inside
 * `root`; anything else is refused, whatever the caller sends. Returns the paths that are gone now.
 */
export async function pruneFiles(input: { root: string; files: string[] }): Promise<string[]> {
  const root = path.resolve(input.root) + path.sep;
  const gone: string[] = [];
  for (const file of input.files) {
    const abs = path.resolve(file);
    if (!abs.startsWith(root)) continue;
    try {
      await fs.rm(path.dirname(abs), { recursive: true, force: true });
      gone.push(file);
    } catch {
      // left for the next sweep
    }
  }
  return gone;
}
