/**
 * Finds the replies to delivered [Leo Chat] prompts in a transcript, Claude's or the one Leo's opencode plugin writes
 * (leo-chat.md, Replies). Pure: the caller reads the transcript (transcript.ts) when the agent's Stop hook fires, or
 * when the daemon starts and catches up on turns that ended while it was down.
 */
import { CODEX_TURN_END } from '../../harnesses/codex/rollout.js';
import { INTERRUPTED, TURN_ENDED, type TranscriptEntry } from '../../harnesses/transcript-entry.js';
import type { TranscriptFormat } from '../../harnesses/transcript-format.js';

export type CaptureResult =
  | { kind: 'reply'; text: string }
  /**
   * The turn called leo_chat_post. `text` is its closing words ('' when it had none, or the turn was taken over or
   * interrupted): the answer after all when the daemon finds no post from that turn in the thread (the call failed).
   */
  | { kind: 'posted'; text: string }
  | { kind: 'none'; reason: 'taken_over' | 'interrupted' | 'empty' }
  /**
   * The turn failed before it answered (no key, the provider refused or erred): `text` is the harness's own words for
   * it, `error` its name for the failure when it gives one.
   */
  | { kind: 'failed'; text: string; error?: string }
  /** The prompt is not in the transcript yet (queued behind a running turn): wait for a later Stop. */
  | { kind: 'not_found' }
  /** The prompt is there but its turn may still be running: wait for its Stop. */
  | { kind: 'pending' };

/** A delivered prompt still waiting for its reply, in the order the prompts were typed into the agent. */
export interface AwaitingPrompt {
  /** The exact text Leo typed. */
  prompt: string;
  /**
   * Ignore prompts recorded before this time (ms): an older identical prompt is not this one. Allow for the delay
   * between the paste and Claude recording it.
   */
  since?: number;
}

/** A prompt in the transcript, as far as telling it again goes: its line's uuid, and its time as a fallback. */
export interface TranscriptMark {
  uuid?: string;
  timestamp?: string;
}

/**
 * Which turn is known to have ended besides those whose end the transcript records (a turn-end line, the next turn's
 * prompt, an interrupt): the one a Stop names by its `prompt_id`, the transcript's last (a Stop that names none), or
 * none at all (catching up without a Stop: a turn whose end is not recorded may still be running). `stoppedAt`: when
 * the naming Stop reached Leo, in wall time as the CLI stamps its transcript (see typedAfterStop).
 */
export type EndedTurn = { promptId: string; stoppedAt?: number } | 'last' | 'none';

export interface CaptureOptions {
  /**
   * The last prompt an earlier capture settled: only prompts after it can be matched, so one turn never answers two
   * messages. When its line is no longer in the transcript (cut from the tail, or a new session's file), prompts are
   * compared by time instead.
   */
  after?: TranscriptMark;
  /** Default 'last'. */
  ended?: EndedTurn;
}

/** The pool's reply capture (workers/reply-capture.ts): one transcript tail read, then captureReplies over it. */
export interface ReplyCaptureInput {
  transcript: string;
  /** Default claude. */
  format?: TranscriptFormat;
  prompts: AwaitingPrompt[];
  after?: TranscriptMark;
  ended?: EndedTurn;
}

export interface Captured {
  result: CaptureResult;
  /** The prompt that was matched (absent for not_found): a settled one becomes the next capture's `after`. */
  at?: TranscriptMark;
}

/** `mcp__<server>__leo_chat_post`: Leo's post tool under any server name the agent's MCP config gave it. */
const POST_TOOL = /^mcp__.+__leo_chat_post$/;

/** Lines written after a turn ends: Claude's (the second only in interactive sessions), Codex's task_complete and Leo's own. */
const TURN_END = new Set(['system:stop_hook_summary', 'system:turn_duration', CODEX_TURN_END, TURN_ENDED]);

/**
 * Ties each awaiting prompt to its own turn and says what that turn answered. Prompts are matched in order, each to
 * the first fitting recorded prompt after the one the previous prompt matched: Claude runs prompts in the order they
 * were typed, so the same text sent twice matches two turns, never one turn twice.
 */
export function captureReplies(
  entries: readonly TranscriptEntry[],
  awaiting: readonly AwaitingPrompt[],
  opts: CaptureOptions = {},
): Captured[] {
  let from = startAfter(entries, opts.after);
  // Where in entries[from] the previous match ended: versions that merge queued prompts hold two in one entry.
  let offset = 0;
  return awaiting.map((a): Captured => {
    const needle = normalizeForMatch(a.prompt);
    if (!needle) return { result: { kind: 'not_found' } };
    for (let i = from; i < entries.length; i++) {
      const e = entries[i]!;
      if (e.kind !== 'user_prompt' || e.text === undefined) continue;
      if (a.since !== undefined && e.timestamp !== undefined && Date.parse(e.timestamp) < a.since) continue;
      const found = findPrompt(normalizeForMatch(e.text), needle, i === from ? offset : 0);
      if (!found) continue;
      from = i;
      offset = found.end;
      const at = { ...(e.uuid ? { uuid: e.uuid } : {}), ...(e.timestamp ? { timestamp: e.timestamp } : {}) };
      return { result: turnResult(entries, i, found.rest, opts.ended ?? 'last'), at };
    }
    return { result: { kind: 'not_found' } };
  });
}

/** The first index after `mark`'s line; without it in the transcript, the first entry recorded after its time. */
function startAfter(entries: readonly TranscriptEntry[], mark: TranscriptMark | undefined): number {
  if (!mark) return 0;
  if (mark.uuid !== undefined) {
    const at = entries.findIndex((e) => e.uuid === mark.uuid);
    if (at >= 0) return at + 1;
  }
  if (mark.timestamp === undefined) return 0;
  const t = Date.parse(mark.timestamp);
  const at = entries.findIndex((e) => e.timestamp !== undefined && Date.parse(e.timestamp) > t);
  return at < 0 ? entries.length : at;
}

/**
 * The turn of the prompt at `at` runs to the next prompt that starts a new turn. Prompts absorbed into it (typed,
 * pasted or raised by a finished background task while a tool ran) belong to it, and so does their answer: a turn
 * with such a prompt after the delivered one was taken over. An interrupted turn ends at the interrupt and answered
 * nothing: what it said before is not its answer.
 */
function turnResult(
  entries: readonly TranscriptEntry[],
  at: number,
  mergedAfter: boolean,
  ended: EndedTurn,
): CaptureResult {
  const prompt = entries[at]!;
  const turn: TranscriptEntry[] = [];
  let takenOver = mergedAfter;
  let interrupted = false;
  let bounded = false;
  let failure: TranscriptEntry | undefined;
  for (let i = at + 1; i < entries.length; i++) {
    const e = entries[i]!;
    if (e.kind === 'user_prompt') {
      const sameTurn = e.midTurn || (prompt.turnIndex !== undefined && e.turnIndex === prompt.turnIndex);
      if (!sameTurn || typedAfterStop(e, ended)) {
        bounded = true;
        break;
      }
      takenOver = true;
      continue;
    }
    if (e.kind === 'other' && e.detail === INTERRUPTED) {
      interrupted = bounded = true;
      break;
    }
    if (e.kind === 'other' && e.detail !== undefined && TURN_END.has(e.detail)) bounded = true;
    // A failure ends the turn, unless the harness went on answering after it.
    if (e.kind === 'turn_error') failure = e;
    else if (e.kind === 'assistant_text' || e.kind === 'tool_use') failure = undefined;
    if (failure) bounded = true;
    turn.push(e);
  }
  if (!bounded && !endedByStop(prompt, ended)) return { kind: 'pending' };

  if (posted(turn)) return { kind: 'posted', text: takenOver || interrupted ? '' : lastAssistantMessage(turn) };
  if (failure) return { kind: 'failed', text: failure.text ?? '', ...(failure.error ? { error: failure.error } : {}) };
  if (takenOver) return { kind: 'none', reason: 'taken_over' };
  if (interrupted) return { kind: 'none', reason: 'interrupted' };
  const text = lastAssistantMessage(turn);
  return text ? { kind: 'reply', text } : { kind: 'none', reason: 'empty' };
}

/**
 * A prompt of the turn a Stop named, recorded after that Stop came. Codex keeps a turn open while its Stop hook runs,
 * so a message typed in that moment joins the ended turn's id; it did not take over what the Stop ended.
 */
function typedAfterStop(e: TranscriptEntry, ended: EndedTurn): boolean {
  if (typeof ended !== 'object' || ended.stoppedAt === undefined || e.timestamp === undefined) return false;
  return e.promptId === ended.promptId && Date.parse(e.timestamp) > ended.stoppedAt;
}

/**
 * Whether a turn with no recorded end has ended all the same. A Stop names the turn it ends, but a queued prompt can
 * start the next turn before an asynchronous capture reads the file: that later turn has not ended, and its reply
 * would be partial. A prompt without an id (older versions) takes the Stop's word.
 */
function endedByStop(prompt: TranscriptEntry, ended: EndedTurn): boolean {
  if (ended === 'none') return false;
  if (ended === 'last') return true;
  return prompt.promptId === undefined || prompt.promptId === ended.promptId;
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
 * Where the delivered prompt sits in a recorded one, at or after `from`: as whole lines, so "[Leo Chat] yes" does not
 * match "[Leo Chat] yes please". `rest` says another prompt follows it in the same recorded prompt (versions that
 * merge queued prompts into one message join them with newlines).
 */
function findPrompt(hay: string, needle: string, from: number): { end: number; rest: boolean } | undefined {
  for (let i = hay.indexOf(needle, from); i >= 0; i = hay.indexOf(needle, i + 1)) {
    const end = i + needle.length;
    if ((i === 0 || hay[i - 1] === '\n') && (end === hay.length || hay[end] === '\n'))
      return { end, rest: end < hay.length };
  }
  return undefined;
}
