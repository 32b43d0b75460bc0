import fs from 'node:fs/promises';
import path from 'node:path';
import { isBelow } from '../src/core/path-inside.js';

/**
 * Deletes attachment files (and their per-attachment folders) that outlived the retention. Each path must sit inside
 * `root`; anything else is refused, whatever the caller sends. Returns the paths that are gone now.
 */
export async function pruneFiles(input: { root: string; files: string[] }): Promise<string[]> {
  const root = path.resolve(input.root);
  const gone: string[] = [];
  for (const file of input.files) {
    const abs = path.resolve(file);
    // The file's folder is what goes, so it too must lie below the root: never the root itself.
    if (!isBelow(root, path.dirname(abs))) continue;
    try {
      await fs.rm(path.dirname(abs), { recursive: true, force: true });
      gone.push(file);
    } catch {
      // left for the next sweep
    }
  }
  return gone;
}
