import type { Dirent } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { formatSizeCompact } from '../format-size.js';
import { defineTool, ToolError, type ToolContext } from './tool.js';
import { resolveInWorkspace } from './workspace-path.js';

/** Past this many entries the listing ends with a count: a huge directory would drown the context. */
const MAX_ENTRIES = 500;

export const listDir = defineTool({
  name: 'list_dir',
  description:
    'List a directory of the workspace: one entry per line, directories with a trailing slash, files with their size.',
  params: z.object({
    dir: z.string().optional().describe('Directory relative to the workspace; default: the workspace itself'),
  }),
  async run({ dir }, ctx) {
    const real = await resolveInWorkspace(ctx, dir ?? '.');
    if (!(await fs.stat(real)).isDirectory()) throw new ToolError(`not a directory: ${dir}`);
    const entries = (await fs.readdir(real, { withFileTypes: true })).sort((a, b) =>
      a.name < b.name ? -1 : a.name > b.name ? 1 : 0,
    );
    const lines = await Promise.all(entries.slice(0, MAX_ENTRIES).map((entry) => describeEntry(ctx, real, entry)));
    if (entries.length > MAX_ENTRIES) lines.push(`… and ${entries.length - MAX_ENTRIES} more entries`);
    return { content: lines.length ? lines.join('\n') : '(empty directory)', success: true };
  },
});

async function describeEntry(ctx: ToolContext, dir: string, entry: Dirent): Promise<string> {
  const full = path.join(dir, entry.name);
  // A link is followed only where read_file could follow it, so its size tells nothing about what lies outside.
  const target = entry.isSymbolicLink() ? await resolveInWorkspace(ctx, full).catch(() => null) : full;
  if (!target) return `${entry.name} (link, not followed)`;
  const st = await fs.stat(target).catch(() => null);
  if (!st) return `${entry.name} (gone)`;
  return st.isDirectory() ? `${entry.name}/` : `${entry.name} (${formatSizeCompact(st.size)})`;
}
