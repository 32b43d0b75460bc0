import type { Dirent, Stats } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { isInside } from '../core/path-inside.js';
import { formatSize } from './format-size.js';
import { isDeniedFile } from './tools/denied-files.js';

/**
 * @-mention expansion for the HTTP chat route (agent-chat-endpoint.md, "@-mention expansion"): paths the message
 * mentions are attached in a hidden `<veil-attachments>` block appended to it, so the model sees them without a tool
 * round-trip. The tag keeps the spec's name because clients strip the block by it.
 *
 * Decisions:
 * - relative paths resolve against the workspace; absolute ones (and relative ones climbing out with `..`) may point
 *   anywhere: the sender already commands an agent whose tools can read those paths, and the spec allows
 *   `@/absolute/path`. What is never attached is anything whose realpath lies in a denied root (Leo's state folder,
 *   holding its tokens — the spec's `.veil/auth.json` — and leo.yaml, holding environment values), so a symlink
 *   pointing there is refused too, and so is a hard link to one of their files (same device and inode);
 * - a refused path is skipped exactly like a missing one, so the block never confirms it exists;
 * - only regular files and directories count: `@/dev/zero` or a FIFO would never finish reading;
 * - a bare token ending in punctuation is tried whole first, then with the punctuation stripped one character at a
 *   time, so `@notes(1)` and `@src/app.ts.` both find their file;
 * - the 8-mention limit counts attached paths (duplicates and misses are free), and the 150 000-character total counts
 *   inlined file contents only: directory listings are bounded by their 20 entries.
 */

const BLOCK_OPEN = '<veil-attachments>';
const BLOCK_CLOSE = '</veil-attachments>';
const PREAMBLE =
  "System: contents of the @-mentioned paths above, auto-attached for reference. This block is hidden from the user's chat display.";

const MAX_MENTIONS = 8;
const MAX_FILE_CHARS = 50_000;
const MAX_TOTAL_CHARS = 150_000;
const MAX_INLINE_BYTES = 2 * 1024 * 1024;
const MAX_DIR_ENTRIES = 20;
/** Like git: a NUL byte in the first 8000 bytes means binary. */
const BINARY_SNIFF_BYTES = 8000;

/** `@` opens a mention only at the start or after whitespace or an opening bracket/quote, which leaves emails out. */
const MENTION = /(?<![^\s([{<'"`])@(?:"([^"\n]+)"|([^\s"]\S*))/g;
const TRAILING_PUNCTUATION = new Set([...'.,;:!?)]}>\'"`…']);

export interface MentionOptions {
  /** Relative mentions resolve against it. */
  workspace: string;
  /** Nothing whose realpath is inside one of these is ever attached. */
  deniedRoots: string[];
}

interface Mention {
  /** As written after the `@`, shown in the section header. */
  label: string;
  /** Paths to try, longest first. */
  candidates: string[];
}

function* mentions(message: string): Generator<Mention> {
  for (const match of message.matchAll(MENTION)) {
    const [, quoted, bare = ''] = match;
    if (quoted !== undefined) {
      yield { label: `"${quoted}"`, candidates: [quoted] };
      continue;
    }
    const candidates = [bare];
    let token = bare;
    while (token.length > 1 && TRAILING_PUNCTUATION.has(token.at(-1)!)) {
      token = token.slice(0, -1);
      candidates.push(token);
    }
    yield { label: bare, candidates };
  }
}

interface Resolved {
  label: string;
  real: string;
  stats: Stats;
}

/** The first candidate that exists decides: if it is refused, a shorter candidate is not tried instead. */
async function resolve(mention: Mention, workspace: string, denied: string[]): Promise<Resolved | null> {
  for (const candidate of mention.candidates) {
    let real: string;
    try {
      real = await fs.realpath(path.resolve(workspace, candidate));
    } catch {
      continue;
    }
    if (denied.some((root) => isInside(root, real))) return null;
    const stats = await fs.stat(real);
    if (!stats.isFile() && !stats.isDirectory()) return null;
    if (await isDeniedFile(stats, denied)) return null;
    return { label: candidate === mention.candidates[0] ? mention.label : candidate, real, stats };
  }
  return null;
}

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

async function readHead(file: string, bytes: number): Promise<Buffer> {
  const handle = await fs.open(file, 'r');
  try {
    const buffer = Buffer.alloc(bytes);
    const { bytesRead } = await handle.read(buffer, 0, bytes, 0);
    return buffer.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

/** Cuts to `limit` UTF-16 units without splitting a surrogate pair. */
function cut(text: string, limit: number): string {
  if (text.length <= limit) return text;
  const code = text.charCodeAt(limit - 1);
  return text.slice(0, code >= 0xd800 && code <= 0xdbff ? limit - 1 : limit);
}

/** The section for a file, and how many characters of content it inlined. */
async function fileSection(
  { label, real, stats }: Resolved,
  budget: number,
): Promise<{ text: string; inlined: number }> {
  const header = `## @${label} (file, ${formatSize(stats.size)})`;
  const note = (why: string) => ({ text: `${header}\nNot inlined: ${why}.`, inlined: 0 });
  if (stats.size > MAX_INLINE_BYTES) return note('larger than 2 MB');
  const bytes = await readHead(real, stats.size);
  if (bytes.subarray(0, BINARY_SNIFF_BYTES).includes(0)) return note('binary file');
  if (budget <= 0) return note(`the ${MAX_TOTAL_CHARS}-character total for @-mentions is used up`);
  const content = bytes.toString('utf8');
  const shown = cut(content, Math.min(MAX_FILE_CHARS, budget));
  const body = shown.endsWith('\n') ? shown.slice(0, -1) : shown;
  const longestTicks = (body.match(/`+/g) ?? []).reduce((max, run) => Math.max(max, run.length), 0);
  const fence = '`'.repeat(Math.max(3, longestTicks + 1));
  const truncated =
    shown.length < content.length ? `\n(truncated: first ${shown.length} of ${content.length} characters)` : '';
  return { text: `${header}\n${fence}\n${body}\n${fence}${truncated}`, inlined: shown.length };
}

/** One listing line; a symlink is followed unless it leads into a denied root, which shows its name only. */
async function entryLine(dir: string, entry: Dirent, denied: string[]): Promise<string> {
  const full = path.join(dir, entry.name);
  try {
    if (entry.isDirectory()) return `- ${entry.name}/`;
    if (entry.isSymbolicLink()) {
      const target = await fs.realpath(full);
      if (denied.some((root) => isInside(root, target))) return `- ${entry.name}`;
    }
    const stats = await fs.stat(full);
    if (stats.isDirectory()) return `- ${entry.name}/`;
    if (stats.isFile()) return `- ${entry.name} (${formatSize(stats.size)})`;
  } catch {
    // A dangling link or an entry gone since the listing: its name is all there is.
  }
  return `- ${entry.name}`;
}

async function directorySection({ label, real }: Resolved, denied: string[]): Promise<string> {
  const entries = await fs.readdir(real, { withFileTypes: true });
  entries.sort(
    (a, b) => Number(b.isDirectory()) - Number(a.isDirectory()) || (a.name < b.name ? -1 : a.name > b.name ? 1 : 0),
  );
  const lines = await Promise.all(entries.slice(0, MAX_DIR_ENTRIES).map((entry) => entryLine(real, entry, denied)));
  const more = entries.length - MAX_DIR_ENTRIES;
  if (more > 0) lines.push(`… and ${plural(more, 'more entry', 'more entries')}`);
  return [`## @${label} (directory, ${plural(entries.length, 'entry', 'entries')})`, ...lines].join('\n');
}

/**
 * Appends the `<veil-attachments>` block for the paths `message` mentions; answers `message` untouched when none
 * resolves, and when it already carries a block (a resend or an edit must not attach twice).
 */
export async function expandMentions(message: string, opts: MentionOptions): Promise<string> {
  if (message.includes(BLOCK_OPEN)) return message;
  const denied = await Promise.all(opts.deniedRoots.map((root) => fs.realpath(root).catch(() => path.resolve(root))));
  const attached = new Set<string>();
  const sections: string[] = [];
  let budget = MAX_TOTAL_CHARS;
  for (const mention of mentions(message)) {
    if (sections.length === MAX_MENTIONS) break;
    try {
      const resolved = await resolve(mention, opts.workspace, denied);
      if (!resolved || attached.has(resolved.real)) continue;
      if (resolved.stats.isDirectory()) {
        sections.push(await directorySection(resolved, denied));
      } else {
        const { text, inlined } = await fileSection(resolved, budget);
        sections.push(text);
        budget -= inlined;
      }
      attached.add(resolved.real);
    } catch {
      // Unreadable (permissions, or removed mid-way): skipped like a path that does not exist.
    }
  }
  if (sections.length === 0) return message;
  return `${message}\n\n${BLOCK_OPEN}\n${PREAMBLE}\n\n${sections.join('\n\n')}\n${BLOCK_CLOSE}`;
}
