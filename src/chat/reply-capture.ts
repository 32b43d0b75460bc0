/**
 * Finds the reply to a delivered [Leo Chat] prompt in a Claude transcript (leo-chat.md, Replies). Pure: the caller
 * reads the transcript (transcript.ts) when the agent's Stop hook fires.
 *
 * The turn of a prompt runs from it to the next prompt that starts a new turn. Prompts absorbed into a running turn
 * (typed, pasted or raised by a finished background task while a tool ran) belong to that turn, and so does their
 * answer: a turn with such a prompt after the delivered one was taken over.
 */
import type { TranscriptEntry } from './transcript.js';

export type CaptureResult =
  | { kind: 'reply'; text: string }
  | { kind: 'none'; reason: 'posted' | 'taken_over' | 'empty' }
  /** The prompt is not in the transcript yet (queued behind a running turn): wait for a later Stop. */
  | { kind: 'not_found' }
  /** The prompt is there but its turn is still running (only with `endedPromptId`): wait for its Stop. */
  | { kind: 'pending' };

export interface CaptureOptions {
  /**
   * Ignore prompts recorded before this time: a message sent twice with the same text must not match the earlier turn
   * while the later one is still queued. Allow for the delay between the paste and Claude recording it.
   */
  since?: Date | number | string;
  /**
   * The `prompt_id` of the Stop hook that triggered this capture: the turn it names has ended. A turn later in the
   * transcript has not (a queued prompt can start its turn before an asynchronous capture reads the file), so its
   * reply is `pending` rather than a partial or empty one. Omitted, the transcript's last turn counts as ended.
   */
  endedPromptId?: string;
}

/** `mcp__<server>__leo_chat_post`: Leo's post tool under any server name the agent's MCP config gave it. */
const POST_TOOL = /^mcp__.+__leo_chat_post$/;

/** Transcript lines that Claude writes after a turn ends (the second only in interactive sessions). */
const TURN_END = new Set(['system:stop_hook_summary', 'system:turn_duration']);

export function captureReply(
  entries: readonly TranscriptEntry[],
  deliveredPrompt: string,
  opts: CaptureOptions = {},
): CaptureResult {
  const needle = normalizeForMatch(deliveredPrompt);
  if (!needle) return { kind: 'not_found' };
  const since = opts.since === undefined ? undefined : new Date(opts.since).getTime();

  let at = -1;
  let mergedAfter = false;
  for (let i = entries.length - 1; i >= 0 && at < 0; i--) {
    const e = entries[i]!;
    if (e.kind !== 'user_prompt' || e.text === undefined) continue;
    if (since !== undefined && e.timestamp !== undefined && Date.parse(e.timestamp) < since) continue;
    const found = findPrompt(normalizeForMatch(e.text), needle);
    if (found === undefined) continue;
    at = i;
    mergedAfter = found.rest;
  }
  if (at < 0) return { kind: 'not_found' };
  const prompt = entries[at]!;

  const turn: TranscriptEntry[] = [];
  let takenOver = mergedAfter;
  let bounded = false;
  for (let i = at + 1; i < entries.length; i++) {
    const e = entries[i]!;
    if (e.kind === 'user_prompt') {
      const sameTurn = e.midTurn || (prompt.turnIndex !== undefined && e.turnIndex === prompt.turnIndex);
      if (!sameTurn) {
        bounded = true;
        break;
      }
      takenOver = true;
      continue;
    }
    if (e.kind === 'other' && e.detail !== undefined && TURN_END.has(e.detail)) bounded = true;
    turn.push(e);
  }
  if (
    !bounded &&
    opts.endedPromptId !== undefined &&
    prompt.promptId !== undefined &&
    prompt.promptId !== opts.endedPromptId
  )
    return { kind: 'pending' };

  if (posted(turn)) return { kind: 'none', reason: 'posted' };
  if (takenOver) return { kind: 'none', reason: 'taken_over' };
  const text = lastAssistantMessage(turn);
  return text ? { kind: 'reply', text } : { kind: 'none', reason: 'empty' };
}

/**
 * A post call counts unless it is known to have failed (no such tool, bad input): then the agent's closing text is the
 * only answer the person gets.
 */
function posted(turn: readonly TranscriptEntry[]): boolean {
  const failed = new Set(turn.filter((e) => e.kind === 'tool_result' && e.isError).map((e) => e.toolUseId));
  return turn.some(
    (e) =>
      e.kind === 'tool_use' &&
      e.toolName !== undefined &&
      POST_TOOL.test(e.toolName) &&
      !(e.toolUseId !== undefined && failed.has(e.toolUseId)),
  );
}

/**
 * The text of the turn's last assistant message that has a text block, its text blocks joined by blank lines.
 * Messages that only call tools or think are passed over, so an interrupted turn answers with the text before its last
 * tool call. A blank text block still counts: the agent's final word was nothing, and an earlier "Let me check." is not
 * an answer (Claude's Stop hook agrees: it leaves out `last_assistant_message` then).
 */
function lastAssistantMessage(turn: readonly TranscriptEntry[]): string {
  let last: TranscriptEntry | undefined;
  for (const e of turn) if (e.kind === 'assistant_text') last = e;
  if (!last) return '';
  const parts =
    last.messageId === undefined
      ? [last]
      : turn.filter((e) => e.kind === 'assistant_text' && e.messageId === last.messageId);
  return parts
    .map((e) => (e.text ?? '').trim())
    .filter(Boolean)
    .join('\n\n');
}

/**
 * Comparable form of a prompt: pasting through tmux and Claude's input box may change line endings (CRLF, CR), turn
 * tabs into spaces, drop trailing spaces or blank lines, and recompose accents. What survives is the sequence of
 * non-blank lines with runs of spaces collapsed.
 */
export function normalizeForMatch(text: string): string {
  return text
    .normalize('NFC')
    .replace(/\r\n?/g, '\n')
    .split('\n')
    .map((line) => line.replace(/[ \t\u00a0]+/g, ' ').trim())
    .filter(Boolean)
    .join('\n');
}

/**
 * Where the delivered prompt sits in a recorded one: as whole lines, so "[Leo Chat] yes" does not match
 * "[Leo Chat] yes please". `rest` says another prompt follows it in the same recorded prompt (versions that merge
 * queued prompts into one message join them with newlines). The last occurrence counts.
 */
function findPrompt(hay: string, needle: string): { rest: boolean } | undefined {
  for (let i = hay.lastIndexOf(needle); i >= 0; i = i === 0 ? -1 : hay.lastIndexOf(needle, i - 1)) {
    const end = i + needle.length;
    if ((i === 0 || hay[i - 1] === '\n') && (end === hay.length || hay[end] === '\n'))
      return { rest: end < hay.length };
  }
  return undefined;
}
