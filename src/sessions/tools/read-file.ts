import fs from 'node:fs/promises';
import { z } from 'zod';
import { formatSizeCompact } from '../format-size.js';
import { defineTool, ToolError } from './tool.js';
import { resolveInWorkspace } from './workspace-path.js';

/** What one call returns at most, so one file cannot fill the model's context. */
const MAX_CHARS = 50_000;
const DEFAULT_LINES = 2000;
/** Beyond this the file is not read at all; bash (head, sed) can still take pieces of it. */
const MAX_FILE_BYTES = 10 * 1024 * 1024;
/** A NUL byte this early marks a binary file, as git and grep decide. */
const SNIFF_BYTES = 8000;

export const readFile = defineTool({
  name: 'read_file',
  description: `Read a text file of the workspace. Returns at most ${DEFAULT_LINES} lines or ${MAX_CHARS} characters; use offset and limit to read on.`,
  params: z.object({
    path: z.string().describe('File path relative to the workspace'),
    offset: z.number().int().min(1).optional().describe('First line to return, from 1; default 1'),
    limit: z.number().int().min(1).optional().describe(`How many lines to return; default ${DEFAULT_LINES}`),
  }),
  async run({ path: p, offset = 1, limit = DEFAULT_LINES }, ctx) {
    const real = await resolveInWorkspace(ctx, p);
    const st = await fs.stat(real);
    if (st.isDirectory()) throw new ToolError(`${p} is a directory; use list_dir`);
    // A FIFO or a device never ends a read, and the blocked read would hold one of libuv's few file-system threads.
    if (!st.isFile()) throw new ToolError(`${p} is not a regular file`);
    if (st.size > MAX_FILE_BYTES) {
      throw new ToolError(`${p} is too large to read (${formatSizeCompact(st.size)}); use bash with head, tail or sed`);
    }
    const buf = await fs.readFile(real);
    if (buf.subarray(0, SNIFF_BYTES).includes(0)) {
      return { content: `${p} is a binary file (${formatSizeCompact(st.size)}); not shown`, success: true };
    }
    if (buf.length === 0) return { content: `${p} is empty`, success: true };
    const lines = buf.toString('utf8').split('\n');
    // A final newline ends the last line rather than starting an empty one.
    if (lines.at(-1) === '') lines.pop();
    if (offset > lines.length) throw new ToolError(`${p} has ${lines.length} lines; offset ${offset} is past the end`);
    let text = lines.slice(offset - 1, offset - 1 + limit).join('\n');
    if (text.length > MAX_CHARS) {
      // Whole lines only, unless a single line is longer than the cap.
      const cut = text.lastIndexOf('\n', MAX_CHARS);
      text = text.slice(0, cut > 0 ? cut : MAX_CHARS);
    }
    const last = offset - 1 + text.split('\n').length;
    if (offset > 1 || last < lines.length) {
      const more = last < lines.length ? `; continue with offset ${last + 1}` : '';
      text += `\n[lines ${offset}–${last} of ${lines.length}${more}]`;
    }
    return { content: text, success: true };
  },
});
