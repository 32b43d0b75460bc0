// The pure half of Leo's opencode plugin: an opencode session's messages (what its SDK's `session.messages` returns)
// turned into the normalized transcript Leo's reply capture reads, and the report of the turn that just ended. It
// runs inside opencode (under Bun), so it imports nothing but the import-free entry vocabulary.
//
// Shapes measured from opencode 1.18.33 (`session.messages` after `session.idle`):
// - `info.role` "user": `parts` of `type: "text"` hold what was typed (`synthetic: true` ones are opencode's own
//   additions); `info.time.created` is when it was submitted.
// - `info.role` "assistant": one message per model step, `parentID` the user message it answers, `finish` the step's
//   finish reason ("stop", "tool-calls", …), `time.completed` once the step and its tool calls are done, `error` with
//   `name: "MessageAbortedError"` when the person interrupted it, `tokens` {input, output, reasoning, cache: {read,
//   write}} and `cost` (USD, 0 when the model has no price). A turn that failed ends in a message whose `error` is
//   the provider's (`name: "APIError"`, `data: {message, statusCode}`: "Incorrect API key provided: …", 401), after
//   opencode's own retries; a `session.error` event with the same error comes just before `session.idle`. Parts: `text`, `tool` (`tool`, `callID`, `state.status`
//   "completed" or "error"), `reasoning`, `step-start`, `step-finish`, …
// - A rejected permission ends the turn with the step's `finish` still "tool-calls" and no step after it: the finish
//   reason alone does not say a turn ended, the session going idle does.
import { INTERRUPTED, LEO_LINE_TYPE, TURN_ENDED, type TranscriptEntry } from '../../transcript-entry.js';

export interface OcPart {
  type: string;
  text?: string;
  synthetic?: boolean;
  tool?: string;
  callID?: string;
  state?: { status?: string };
}

export interface OcMessage {
  info: {
    id: string;
    role: string;
    time?: { created?: number; completed?: number };
    finish?: string;
    error?: { name?: string; data?: { message?: string; statusCode?: number } };
    tokens?: { input?: number; output?: number; reasoning?: number; cache?: { read?: number; write?: number } };
    cost?: number;
  };
  parts: OcPart[];
}

/** The usage contract src/usage/ reads from a stop payload: one turn's numbers. */
export interface TurnUsage {
  input_tokens: number;
  output_tokens: number;
  cache_read_tokens: number;
  cache_write_tokens: number;
  cost_usd: number | null;
}

/** What the plugin's stop payload says about the turn that ended, besides where the transcript is. */
export interface TurnReport {
  /** The id of the turn's opening prompt (its user message), as the transcript's entries carry it. */
  prompt_id?: string;
  /** The text of the turn's last assistant message that has text; absent when it had none. */
  last_assistant_message?: string;
  usage: TurnUsage;
}

/** opencode names an MCP tool `<server>_<tool>`; the transcript names Leo's as Claude does, `mcp__<server>__<tool>`. */
export function transcriptToolName(tool: string, leoServer: string): string {
  const prefix = `${leoServer}_`;
  return tool.startsWith(prefix) ? `mcp__${leoServer}__${tool.slice(prefix.length)}` : tool;
}

/**
 * The session as transcript entries, in order. It is only written when the session has gone idle, so it ends with a
 * turn-end mark. A prompt submitted while the step before it was still running (its message not completed yet) joined
 * that turn: opencode answers it in the same run, so the turn was taken over.
 */
export function transcriptEntries(messages: readonly OcMessage[], leoServer: string): TranscriptEntry[] {
  const out: TranscriptEntry[] = [];
  let running: OcMessage['info'] | undefined;
  let turnPrompt: string | undefined;
  for (const { info, parts } of messages) {
    const base = { uuid: info.id, ...(info.time?.created ? { timestamp: iso(info.time.created) } : {}) };
    if (info.role === 'user') {
      const text = userText(parts);
      if (!text) {
        out.push({ kind: 'other', detail: 'user:empty', ...base });
        continue;
      }
      const created = info.time?.created ?? 0;
      const midTurn = running !== undefined && (running.time?.completed ?? Infinity) > created;
      if (!midTurn) {
        stopped(running, out);
        running = undefined;
        turnPrompt = info.id;
      }
      out.push({
        kind: 'user_prompt',
        text,
        ...(midTurn ? { midTurn: true } : {}),
        ...(turnPrompt ? { promptId: turnPrompt } : {}),
        ...base,
      });
      continue;
    }
    if (info.role !== 'assistant') continue;
    running = info;
    for (const part of parts) out.push(...partEntries(part, info.id, leoServer, base));
    if (info.error?.name === 'MessageAbortedError') {
      out.push({ kind: 'other', detail: INTERRUPTED, ...base });
      running = undefined;
    } else if (info.error) {
      out.push(turnError(info.error, base));
      running = undefined;
    }
  }
  stopped(running, out);
  out.push({ kind: 'other', detail: TURN_ENDED });
  return out;
}

/**
 * A turn whose last step asked for tool calls and got no step after them was stopped, not finished: a rejected
 * permission ends it so. Like an interrupt it answered nothing, and the text before the call ("Running it.") is no
 * reply.
 */
function stopped(last: OcMessage['info'] | undefined, out: TranscriptEntry[]): void {
  if (last?.finish === 'tool-calls') out.push({ kind: 'other', detail: INTERRUPTED, uuid: last.id });
}

function partEntries(
  part: OcPart,
  messageId: string,
  leoServer: string,
  base: { uuid: string; timestamp?: string },
): TranscriptEntry[] {
  if (part.type === 'text') {
    if (part.synthetic) return [{ kind: 'other', detail: 'assistant:synthetic', ...base }];
    return [{ kind: 'assistant_text', text: part.text ?? '', messageId, ...base }];
  }
  if (part.type === 'tool' && part.tool) {
    const id = part.callID ? { toolUseId: part.callID } : {};
    const call: TranscriptEntry = {
      kind: 'tool_use',
      toolName: transcriptToolName(part.tool, leoServer),
      messageId,
      ...id,
      ...base,
    };
    // Only a failed call needs its result: reply capture does not count a post that failed.
    return part.state?.status === 'error' ? [call, { kind: 'tool_result', isError: true, ...id, ...base }] : [call];
  }
  return [{ kind: 'other', detail: `assistant:${part.type}`, ...base }];
}

/** A step's error as the turn's failure: the provider's words, and its HTTP status when it gave one. */
function turnError(
  error: NonNullable<OcMessage['info']['error']>,
  base: { uuid: string; timestamp?: string },
): TranscriptEntry {
  const status = error.data?.statusCode;
  return {
    kind: 'turn_error',
    text: error.data?.message ?? error.name ?? 'error',
    ...(status !== undefined ? { error: `http_${status}` } : error.name ? { error: error.name } : {}),
    ...base,
  };
}

function userText(parts: readonly OcPart[]): string {
  return parts
    .filter((p) => p.type === 'text' && !p.synthetic && typeof p.text === 'string')
    .map((p) => (p.text as string).trim())
    .filter(Boolean)
    .join('\n');
}

/** The transcript file's content: one `leo` line per entry. */
export function transcriptLines(entries: readonly TranscriptEntry[]): string {
  return entries.map((entry) => JSON.stringify({ type: LEO_LINE_TYPE, entry }) + '\n').join('');
}

/**
 * The turn that just ended: its opening prompt, its last assistant text, and the usage of every model step that
 * started at or after `sinceMs` (the previous report, or the plugin's start: a resumed session's history is not this
 * turn's). Reasoning tokens are billed as output, so they count in output_tokens.
 */
export function turnReport(
  messages: readonly OcMessage[],
  entries: readonly TranscriptEntry[],
  sinceMs: number,
): TurnReport {
  const usage: TurnUsage = {
    input_tokens: 0,
    output_tokens: 0,
    cache_read_tokens: 0,
    cache_write_tokens: 0,
    cost_usd: 0,
  };
  for (const { info } of messages) {
    if (info.role !== 'assistant' || (info.time?.created ?? 0) < sinceMs) continue;
    const t = info.tokens ?? {};
    usage.input_tokens += t.input ?? 0;
    usage.output_tokens += (t.output ?? 0) + (t.reasoning ?? 0);
    usage.cache_read_tokens += t.cache?.read ?? 0;
    usage.cache_write_tokens += t.cache?.write ?? 0;
    usage.cost_usd = typeof info.cost === 'number' && usage.cost_usd !== null ? usage.cost_usd + info.cost : null;
  }
  const opening = entries.findLastIndex((e) => e.kind === 'user_prompt' && !e.midTurn);
  const turn = opening < 0 ? [] : entries.slice(opening);
  const last = turn.findLast((e) => e.kind === 'assistant_text' && (e.text ?? '').trim() !== '');
  const text = last
    ? turn
        .filter((e) => e.kind === 'assistant_text' && e.messageId === last.messageId)
        .map((e) => (e.text ?? '').trim())
        .filter(Boolean)
        .join('\n\n')
    : '';
  const promptId = turn[0]?.promptId;
  return { ...(promptId ? { prompt_id: promptId } : {}), ...(text ? { last_assistant_message: text } : {}), usage };
}

function iso(ms: number): string {
  return new Date(ms).toISOString();
}
