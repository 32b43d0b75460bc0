import fs from 'node:fs/promises';
import path from 'node:path';
import type { PlannedFile } from './types.js';

/** Writes a launch plan's generated files (settings, MCP configs) in private folders, with the plan's modes. */
export async function writePlannedFiles(files: readonly PlannedFile[]): Promise<void> {
  for (const f of files) {
    await fs.mkdir(path.dirname(f.path), { recursive: true, mode: 0o700 });
    await fs.writeFile(f.path, f.content, { mode: f.mode });
    // writeFile's mode applies only to a new file; one left from an earlier run keeps its own.
    await fs.chmod(f.path, f.mode);
  }
}
