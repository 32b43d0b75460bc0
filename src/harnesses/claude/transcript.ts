/**
 * A defensive reader for Claude Code's session transcripts (`<config>/projects/<slug>/<session>.jsonl`), normalized to
 * the few things reply capture needs, and for the transcripts Leo's opencode plugin writes (`leo` lines, each one
 * normalized entry: see transcript-entry.ts). The format is Claude's private one and changes between versions, so every line
 * is parsed on its own and anything unexpected degrades to `other` or is skipped, never thrown.
 *
 * Shapes seen from claude 2.1.328 (recorded in test/fixtures/transcripts):
 * - `type: "user"`: `message.content` is the typed string, or blocks (`text`, `image`, `tool_result`). Besides real
 *   prompts it carries tool results, `isMeta` nudges ("[Your previous response had no visible output…]"), interrupt
 *   markers ("[Request interrupted by user…]", with `interruptedMessageId`) and, after /compact, `isCompactSummary`.
 *   A prompt starts a new turn (`turnPosition.turnIndex`); `origin.kind` tells a human from a task-notification.
 * - `type: "assistant"`: one line per content block (`text`, `tool_use`, `thinking`); the blocks of one API message
 *   share `message.id`. A turn that failed ends with one written by Claude itself (`model` "<synthetic>") with
 *   `isApiErrorMessage: true`, `error` ("authentication_failed", "server_error", …) and Claude's words for it as its
 *   text ("Not logged in · Please run /login", "API Error: 500 …"); no Stop hook follows, a StopFailure does.
 * - `type: "attachment"` with `attachment.type: "queued_command"`: a prompt typed (or a task-notification raised) while
 *   a turn was running, absorbed into that turn rather than starting its own.
 * - Bookkeeping that must never be taken for a prompt though it holds prompt text: `queue-operation` (`content`),
 *   `last-prompt` (`lastPrompt`), `api-request-blob` (a copy of the request, `message.role` "user" or "system").
 *   Also `system` (`subtype` stop_hook_summary, turn_duration, …), `summary`, `mode`, `permission-mode`,
 *   `file-history-snapshot`, `api-request`, `api-request-shape`, `tools-used`, `atis-latch`, `cost-state`.
 */
import { jsonlObjects } from '../../core/jsonl.js';
import { bool, fields, list, num, str, type Fields } from '../../core/lenient.js';
import { INTERRUPTED, LEO_LINE_TYPE, type TranscriptEntry, type TranscriptEntryKind } from '../transcript-entry.js';
import { readTailLines } from '../tail-lines.js';

export { INTERRUPTED, type TranscriptEntry, type TranscriptEntryKind } from '../transcript-entry.js';

/**
 * The parsed tail of a transcript: at most `maxBytes` from the end, starting at a line boundary, so a transcript of any
 * size costs the same. `parse` reads the CLI's own format: Claude's (the default) or Codex's rollout. A missing file reads as empty: Claude creates it with the first prompt, and a caller waiting for
 * its prompt treats both the same.
 */
export async function readTranscriptTail(
  file: string,
  opts: { maxBytes?: number; parse?: (lines: readonly string[]) => TranscriptEntry[] } = {},
): Promise<TranscriptEntry[]> {
  return (opts.parse ?? parseTranscriptLines)(await readTailLines(file, opts));
}

/** Pure: JSONL lines (in file order) to entries (in file order). Blank, malformed and shapeless lines are skipped. */
export function parseTranscriptLines(lines: readonly string[]): TranscriptEntry[] {
  const out: TranscriptEntry[] = [];
  const turn: TurnState = {};
  for (const value of jsonlObjects(lines)) {
    const head = lineHead(value as Fields);
    if (head) parseLine(head, out, turn);
  }
  return out;
}

/** Prompt content: the typed string, or blocks. */
type Content = string | readonly unknown[];

/** The fields of a line that are read. Every one but `type` reads leniently: of an unexpected type, it is absent. */
interface LineHead {
  type: string;
  uuid?: string;
  timestamp?: string;
  isSidechain?: boolean;
  isMeta?: boolean;
  isCompactSummary?: boolean;
  isVisibleInTranscriptOnly?: boolean;
  interruptedMessageId?: string;
  promptId?: string;
  subtype?: string;
  isApiErrorMessage?: boolean;
  error?: string;
  originKind?: string;
  turnIndex?: number;
  message?: { id?: string; role?: string; content?: Content };
  attachment?: Fields;
  entry?: unknown;
}

function lineHead(v: Fields): LineHead | null {
  const type = str(v.type);
  if (type === undefined) return null;
  const message = fields(v.message);
  return {
    type,
    uuid: str(v.uuid),
    timestamp: str(v.timestamp),
    isSidechain: bool(v.isSidechain),
    isMeta: bool(v.isMeta),
    isCompactSummary: bool(v.isCompactSummary),
    isVisibleInTranscriptOnly: bool(v.isVisibleInTranscriptOnly),
    interruptedMessageId: str(v.interruptedMessageId),
    promptId: str(v.promptId),
    subtype: str(v.subtype),
    isApiErrorMessage: bool(v.isApiErrorMessage),
    error: str(v.error),
    originKind: str(fields(v.origin)?.kind),
    turnIndex: num(fields(v.turnPosition)?.turnIndex),
    message: message && { id: str(message.id), role: str(message.role), content: content(message.content) },
    attachment: fields(v.attachment),
    entry: v.entry,
  };
}

function content(v: unknown): Content | undefined {
  return str(v) ?? list(v);
}

const ENTRY_KINDS: ReadonlySet<string> = new Set<TranscriptEntryKind>([
  'user_prompt',
  'assistant_text',
  'tool_use',
  'tool_result',
  'turn_error',
  'other',
]);
/** The fields of an entry besides its kind, each with its reader. */
const ENTRY_FIELDS = {
  text: str,
  error: str,
  toolName: str,
  toolUseId: str,
  isError: bool,
  messageId: str,
  midTurn: bool,
  origin: str,
  promptId: str,
  detail: str,
  uuid: str,
  timestamp: str,
} satisfies { [K in Exclude<keyof TranscriptEntry, 'kind' | 'turnIndex'>]-?: (v: unknown) => TranscriptEntry[K] };

/** An entry Leo's own plugin wrote (LEO_LINE_TYPE): already normalized, so only checked; null when its kind is not one. */
function leoEntry(v: unknown): TranscriptEntry | null {
  const entry = fields(v);
  const kind = str(entry?.kind);
  if (!entry || kind === undefined || !ENTRY_KINDS.has(kind)) return null;
  const out: TranscriptEntry = { kind: kind as TranscriptEntryKind };
  // A field of the wrong type reads as absent, and absent fields stay out of the entry.
  for (const [k, read] of Object.entries(ENTRY_FIELDS)) {
    const value = read(entry[k]);
    if (value !== undefined) Object.assign(out, { [k]: value });
  }
  return out;
}

/** A `text` block's text. */
function blockText(b: unknown): string | undefined {
  const block = fields(b);
  return block?.type === 'text' ? str(block.text) : undefined;
}

function toolUse(b: unknown): { name: string; id?: string } | null {
  const block = fields(b);
  const name = str(block?.name);
  return block?.type === 'tool_use' && name !== undefined ? { name, id: str(block.id) } : null;
}

function toolResult(b: unknown): { toolUseId?: string; content: unknown; isError?: boolean } | null {
  const block = fields(b);
  if (block?.type !== 'tool_result') return null;
  return { toolUseId: str(block.tool_use_id), content: block.content, isError: bool(block.is_error) };
}

/** A queued_command attachment: a prompt typed while a turn ran. */
function queuedCommand(a: Fields | undefined): { prompt: Content; commandMode?: string; originKind?: string } | null {
  const prompt = content(a?.prompt);
  if (a?.type !== 'queued_command' || prompt === undefined) return null;
  return { prompt, commandMode: str(a.commandMode), originKind: str(fields(a.origin)?.kind) };
}

/** The running turn's prompt id: user lines carry it (tool results too), a queued_command attachment does not. */
interface TurnState {
  promptId?: string;
}

function parseLine(line: LineHead, out: TranscriptEntry[], turn: TurnState): void {
  const base = { ...(line.uuid ? { uuid: line.uuid } : {}), ...(line.timestamp ? { timestamp: line.timestamp } : {}) };
  const other = (detail: string): void => void out.push({ kind: 'other', detail, ...base });

  // A subagent's conversation (inline in older versions): its prompts and replies are not the main thread's.
  if (line.isSidechain) return other(`${line.type}:sidechain`);

  if (line.type === LEO_LINE_TYPE) {
    const entry = leoEntry(line.entry);
    if (!entry) return other('leo:invalid');
    out.push(entry);
    return;
  }
  if (line.type === 'user') {
    if (line.promptId) turn.promptId = line.promptId;
    return parseUser(line, base, out);
  }
  if (line.type === 'assistant') return parseAssistant(line, base, out);
  if (line.type === 'attachment') {
    const queued = queuedCommand(line.attachment);
    if (!queued) return other(`attachment:${str(line.attachment?.type) ?? 'unknown'}`);
    const text = promptText(queued.prompt);
    if (!text) return other('attachment:queued_command');
    const origin = queued.originKind ?? (queued.commandMode === 'task-notification' ? 'task-notification' : undefined);
    out.push({
      kind: 'user_prompt',
      text,
      midTurn: true,
      ...(origin ? { origin } : {}),
      ...(turn.promptId ? { promptId: turn.promptId } : {}),
      ...base,
    });
    return;
  }
  other(line.subtype ? `${line.type}:${line.subtype}` : line.type);
}

function parseUser(line: LineHead, base: Partial<TranscriptEntry>, out: TranscriptEntry[]): void {
  const other = (detail: string): void => void out.push({ kind: 'other', detail, ...base });
  const msg = line.message;
  // Recent versions may record context as a `role: "system"` message; only the user's role carries prompts.
  if (!msg || (msg.role !== undefined && msg.role !== 'user') || msg.content === undefined)
    return other('user:no-message');
  if (line.isMeta) return other('user:meta');
  if (line.isCompactSummary) return other('user:compact-summary');
  if (line.isVisibleInTranscriptOnly) return other('user:transcript-only');
  if (line.interruptedMessageId) return other(INTERRUPTED);

  const content = msg.content;
  if (typeof content !== 'string' && content.some((b) => toolResult(b) !== null)) {
    // A tool-result line is the turn continuing, not a prompt. Any text beside the results is left as `other`: taking
    // it for a prompt would wrongly mark the turn taken over, and a missed takeover only posts a reply anyway.
    for (const b of content) {
      const r = toolResult(b);
      if (!r) {
        other('user:beside-tool-result');
        continue;
      }
      out.push({
        kind: 'tool_result',
        text: resultText(r.content),
        ...(r.toolUseId ? { toolUseId: r.toolUseId } : {}),
        ...(r.isError ? { isError: true } : {}),
        ...base,
      });
    }
    return;
  }

  const text = promptText(content);
  if (!text) return other('user:empty');
  if (INTERRUPT_TEXT.test(text)) return other(INTERRUPTED);
  if (SYSTEM_TEXT.test(text)) return other('user:system-text');
  const origin = line.originKind ?? (text.startsWith('<task-notification>') ? 'task-notification' : undefined);
  const turnIndex = line.turnIndex;
  out.push({
    kind: 'user_prompt',
    text,
    ...(origin ? { origin } : {}),
    ...(turnIndex !== undefined ? { turnIndex } : {}),
    ...(line.promptId ? { promptId: line.promptId } : {}),
    ...base,
  });
}

function parseAssistant(line: LineHead, base: Partial<TranscriptEntry>, out: TranscriptEntry[]): void {
  const msg = line.message;
  if (!msg || msg.content === undefined) {
    out.push({ kind: 'other', detail: 'assistant:no-message', ...base });
    return;
  }
  // The turn failed (no key, the provider refused or erred): Claude writes its own words for it as the answer.
  if (line.isApiErrorMessage) {
    const text = typeof msg.content === 'string' ? msg.content : msg.content.map((b) => blockText(b) ?? '').join('\n');
    out.push({ kind: 'turn_error', text: text.trim(), ...(line.error ? { error: line.error } : {}), ...base });
    return;
  }
  // Claude writes one line per block; without an API message id each line stands for its own message.
  const messageId = msg.id ?? line.uuid;
  const withId = { ...(messageId ? { messageId } : {}), ...base };
  const blocks = typeof msg.content === 'string' ? [{ type: 'text', text: msg.content }] : msg.content;
  for (const b of blocks) {
    const text = blockText(b);
    if (text !== undefined) {
      out.push({ kind: 'assistant_text', text, ...withId });
      continue;
    }
    const tool = toolUse(b);
    if (tool) {
      out.push({ kind: 'tool_use', toolName: tool.name, ...(tool.id ? { toolUseId: tool.id } : {}), ...withId });
      continue;
    }
    out.push({ kind: 'other', detail: `assistant:${str(fields(b)?.type) ?? 'unknown'}`, ...withId });
  }
}

/** The interrupt marker's text, for versions that did not tag it with `interruptedMessageId`. */
const INTERRUPT_TEXT = /^\[Request interrupted by user[^\]]*\]$/;

/**
 * Outputs Claude records as user lines: local slash-command and `!` shell output. A typed slash command
 * (`<command-name>`) or `!` command (`<bash-input>`) stays a prompt: the person did send it.
 */
const SYSTEM_TEXT = /^(?:<local-command-(?:stdout|stderr|caveat)>|<bash-(?:stdout|stderr)>)/;

const REMINDER = /<system-reminder>[\s\S]*?<\/system-reminder>/g;
// Long pastes arrive wrapped as `<pasted_content id="…">…</pasted_content id="…">`; the person typed what is inside.
const PASTE_TAG = /<\/?pasted_content(?:\s+id="[^"]*")?\s*>/g;

/** The human-typed text of a prompt: text blocks only, without Claude's `<system-reminder>` context and paste tags. */
function promptText(content: string | readonly unknown[]): string {
  const parts: string[] = [];
  for (const b of typeof content === 'string' ? [content] : content) {
    const t = typeof b === 'string' ? b : blockText(b);
    if (t === undefined) continue;
    const clean = t.replace(REMINDER, '').replace(PASTE_TAG, '').trim();
    if (clean) parts.push(clean);
  }
  return parts.join('\n');
}

function resultText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map(blockText)
    .filter((t): t is string => t !== undefined)
    .join('\n');
}
