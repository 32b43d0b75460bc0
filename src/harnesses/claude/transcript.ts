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
import { z } from 'zod';
import { jsonlObjects } from '../../core/jsonl.js';
import { INTERRUPTED, LEO_LINE_TYPE, type TranscriptEntry } from '../transcript-entry.js';
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
    const head = LineHead.safeParse(value);
    if (!head.success) continue;
    parseLine(head.data, out, turn);
  }
  return out;
}

// Every field but `type` is read leniently: a field of an unexpected type reads as absent rather than losing the line.
// Only the fields read are kept (z.object drops the rest), which keeps the many large lines of a tail cheap.
const opt = <T extends z.ZodType>(schema: T) => schema.optional().catch(undefined);

const LineHead = z.object({
  type: z.string(),
  uuid: opt(z.string()),
  timestamp: opt(z.string()),
  isSidechain: opt(z.boolean()),
  isMeta: opt(z.boolean()),
  isCompactSummary: opt(z.boolean()),
  isVisibleInTranscriptOnly: opt(z.boolean()),
  interruptedMessageId: opt(z.string()),
  promptId: opt(z.string()),
  subtype: opt(z.string()),
  isApiErrorMessage: opt(z.boolean()),
  error: opt(z.string()),
  origin: opt(z.object({ kind: opt(z.string()) })),
  turnPosition: opt(z.object({ turnIndex: opt(z.number()) })),
  message: opt(
    z.object({
      id: opt(z.string()),
      role: opt(z.string()),
      content: opt(z.union([z.string(), z.array(z.unknown())])),
    }),
  ),
  // Loose: a queued_command is read from it whole.
  attachment: opt(z.looseObject({ type: opt(z.string()) })),
  entry: opt(z.unknown()),
});
type LineHead = z.infer<typeof LineHead>;

/** An entry Leo's own plugin wrote (LEO_LINE_TYPE): already normalized, so only checked. */
const LeoEntry = z.object({
  kind: z.enum(['user_prompt', 'assistant_text', 'tool_use', 'tool_result', 'turn_error', 'other']),
  text: opt(z.string()),
  error: opt(z.string()),
  toolName: opt(z.string()),
  toolUseId: opt(z.string()),
  isError: opt(z.boolean()),
  messageId: opt(z.string()),
  midTurn: opt(z.boolean()),
  origin: opt(z.string()),
  promptId: opt(z.string()),
  detail: opt(z.string()),
  uuid: opt(z.string()),
  timestamp: opt(z.string()),
});

const TextBlock = z.object({ type: z.literal('text'), text: z.string() });
const ToolUseBlock = z.object({ type: z.literal('tool_use'), name: z.string(), id: opt(z.string()) });
const ToolResultBlock = z.object({
  type: z.literal('tool_result'),
  tool_use_id: opt(z.string()),
  content: z.unknown(),
  is_error: opt(z.boolean()),
});
const AnyBlock = z.object({ type: z.string() });

const QueuedCommand = z.object({
  type: z.literal('queued_command'),
  prompt: z.union([z.string(), z.array(z.unknown())]),
  commandMode: opt(z.string()),
  origin: opt(z.object({ kind: opt(z.string()) })),
});

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
    const entry = LeoEntry.safeParse(line.entry);
    if (!entry.success) return other('leo:invalid');
    // A field of the wrong type reads as absent (see opt), and absent fields stay out of the entry.
    const fields = Object.entries(entry.data).filter(([, v]) => v !== undefined);
    out.push({ ...Object.fromEntries(fields), kind: entry.data.kind });
    return;
  }
  if (line.type === 'user') {
    if (line.promptId) turn.promptId = line.promptId;
    return parseUser(line, base, out);
  }
  if (line.type === 'assistant') return parseAssistant(line, base, out);
  if (line.type === 'attachment') {
    const queued = QueuedCommand.safeParse(line.attachment);
    if (!queued.success) return other(`attachment:${line.attachment?.type ?? 'unknown'}`);
    const text = promptText(queued.data.prompt);
    if (!text) return other('attachment:queued_command');
    const origin =
      queued.data.origin?.kind ?? (queued.data.commandMode === 'task-notification' ? 'task-notification' : undefined);
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
  if (typeof content !== 'string' && content.some((b) => ToolResultBlock.safeParse(b).success)) {
    // A tool-result line is the turn continuing, not a prompt. Any text beside the results is left as `other`: taking
    // it for a prompt would wrongly mark the turn taken over, and a missed takeover only posts a reply anyway.
    for (const b of content) {
      const r = ToolResultBlock.safeParse(b);
      if (!r.success) {
        other('user:beside-tool-result');
        continue;
      }
      out.push({
        kind: 'tool_result',
        text: resultText(r.data.content),
        ...(r.data.tool_use_id ? { toolUseId: r.data.tool_use_id } : {}),
        ...(r.data.is_error ? { isError: true } : {}),
        ...base,
      });
    }
    return;
  }

  const text = promptText(content);
  if (!text) return other('user:empty');
  if (INTERRUPT_TEXT.test(text)) return other(INTERRUPTED);
  if (SYSTEM_TEXT.test(text)) return other('user:system-text');
  const origin = line.origin?.kind ?? (text.startsWith('<task-notification>') ? 'task-notification' : undefined);
  const turnIndex = line.turnPosition?.turnIndex;
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
    const text =
      typeof msg.content === 'string'
        ? msg.content
        : msg.content.map((b) => TextBlock.safeParse(b).data?.text ?? '').join('\n');
    out.push({ kind: 'turn_error', text: text.trim(), ...(line.error ? { error: line.error } : {}), ...base });
    return;
  }
  // Claude writes one line per block; without an API message id each line stands for its own message.
  const messageId = msg.id ?? line.uuid;
  const withId = { ...(messageId ? { messageId } : {}), ...base };
  const blocks = typeof msg.content === 'string' ? [{ type: 'text', text: msg.content }] : msg.content;
  for (const b of blocks) {
    const text = TextBlock.safeParse(b);
    if (text.success) {
      out.push({ kind: 'assistant_text', text: text.data.text, ...withId });
      continue;
    }
    const tool = ToolUseBlock.safeParse(b);
    if (tool.success) {
      out.push({
        kind: 'tool_use',
        toolName: tool.data.name,
        ...(tool.data.id ? { toolUseId: tool.data.id } : {}),
        ...withId,
      });
      continue;
    }
    const any = AnyBlock.safeParse(b);
    out.push({ kind: 'other', detail: `assistant:${any.success ? any.data.type : 'unknown'}`, ...withId });
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
    const t = typeof b === 'string' ? b : TextBlock.safeParse(b).data?.text;
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
    .map((b) => TextBlock.safeParse(b).data?.text)
    .filter((t): t is string => t !== undefined)
    .join('\n');
}
