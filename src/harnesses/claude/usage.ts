// Claude Code's turn usage, from its transcript JSONL (the Stop hook's transcript_path). Pure over the lines.
//
// Measured with claude 2.1.328 against the scripted API (test/fixtures/transcripts): every `user` line of a turn — its
// prompt and its tool results — carries the turn's `promptId` (what the Stop hook reports as prompt_id); each
// `assistant` line is one content block, and the blocks of one API message share `message.id` and repeat the
// message's `message.usage` ({input_tokens, output_tokens, cache_read_input_tokens, cache_creation_input_tokens}) and
// `message.model`. So a turn's usage is the sum over its distinct assistant messages. Claude's own side requests
// (titles, summaries) are not in the transcript and are not counted; the transcript holds no cost for an interactive
// session (a `cost-state` line is written by `claude -p` only), so cost comes from `usage.prices`.
import { jsonlObject } from '../../core/jsonl.js';
import { count, fields, str, type Fields } from '../../core/lenient.js';
import type { HarnessTurn, TokenCounts } from '../../wire/usage.js';

/** What a line says of usage; every field but `type` is absent when of an unexpected type. */
interface Line {
  type: string;
  promptId?: string;
  message?: { id?: string; model?: string; stopReason?: string; usage?: TokenCounts };
}

interface Turn {
  model: string | null;
  messages: Map<string, TokenCounts>;
}

/**
 * The usage of the turn `promptId` names (the Stop's prompt_id), or of the transcript's last turn without one. Null
 * when that turn made no model call the transcript records.
 */
export function claudeTurnUsage(lines: readonly string[], promptId?: string): HarnessTurn | null {
  const turns = new Map<string, Turn>();
  let current: Turn | undefined;
  let currentId: string | undefined;
  for (const raw of lines) {
    const line = parse(raw);
    if (!line) continue;
    if (line.type === 'user' && line.promptId !== undefined && line.promptId !== currentId) {
      currentId = line.promptId;
      current = turns.get(currentId) ?? { model: null, messages: new Map() };
      turns.set(currentId, current);
    }
    const usage = line.message?.usage;
    if (line.type !== 'assistant' || !current || !usage) continue;
    // Without an API message id each line stands for its own message (the transcript's line count keys it).
    const id = line.message?.id ?? `line-${current.messages.size}`;
    current.model = line.message?.model ?? current.model;
    current.messages.set(id, usage);
  }
  const key = promptId !== undefined && turns.has(promptId) ? promptId : promptId === undefined ? currentId : undefined;
  const turn = key === undefined ? undefined : turns.get(key);
  if (key === undefined || !turn || turn.messages.size === 0) return null;
  return { key, model: turn.model, tokens: sumCounts([...turn.messages.values()]) };
}

/**
 * Whether the transcript's last turn has ended: its last user or assistant line is an assistant block the model
 * stopped on for a reason other than a tool call (`end_turn` measured; a tool result or a prompt after it means the
 * turn goes on or another began).
 */
export function claudeLastTurnEnded(lines: readonly string[]): boolean {
  for (let i = lines.length - 1; i >= 0; i--) {
    const line = parse(lines[i]!);
    if (!line || (line.type !== 'user' && line.type !== 'assistant')) continue;
    const reason = line.message?.stopReason;
    return line.type === 'assistant' && typeof reason === 'string' && reason !== 'tool_use';
  }
  return false;
}

function sumCounts(all: readonly TokenCounts[]): TokenCounts {
  const out: TokenCounts = { input_tokens: 0, output_tokens: 0, cache_read_tokens: 0, cache_write_tokens: 0 };
  for (const c of all) {
    out.input_tokens += c.input_tokens;
    out.output_tokens += c.output_tokens;
    out.cache_read_tokens += c.cache_read_tokens;
    out.cache_write_tokens += c.cache_write_tokens;
  }
  return out;
}

function parse(raw: string): Line | null {
  const value = jsonlObject(raw) as Fields | null;
  const type = str(value?.type);
  if (!value || type === undefined) return null;
  const message = fields(value.message);
  const usage = fields(message?.usage);
  return {
    type,
    promptId: str(value.promptId),
    message: message && {
      id: str(message.id),
      model: str(message.model),
      stopReason: str(message.stop_reason),
      usage: usage && {
        input_tokens: count(usage.input_tokens),
        output_tokens: count(usage.output_tokens),
        cache_read_tokens: count(usage.cache_read_input_tokens),
        cache_write_tokens: count(usage.cache_creation_input_tokens),
      },
    },
  };
}
