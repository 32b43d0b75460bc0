/**
 * A defensive reader for Codex's session rollouts (`$CODEX_HOME/sessions/YYYY/MM/DD/rollout-<time>-<id>.jsonl`, the
 * file its hooks name as `transcript_path`), normalized to the same entries as Claude's transcripts so one reply
 * capture serves both. Private format: each line is parsed on its own, anything unexpected is `other` or skipped.
 *
 * Shapes seen from codex 0.171.0 (TUI and exec), every line `{timestamp, type, payload}`:
 * - `event_msg` `task_started` / `task_complete` (`turn_id`, `last_agent_message`) / `turn_aborted`: a turn's bounds.
 *   A turn the provider refused ends in a `task_complete` with `error: {message, codex_error_info}` ("unexpected
 *   status 401 Unauthorized: …", `http_connection_failed.http_status_code` 401) and no Stop hook.
 * - `event_msg` `item_completed` with `item.type: "UserMessage"` (`turn_id`, `item.content[].text`): what the person
 *   typed, once, without Codex's context. A message typed while a turn runs joins that turn (same `turn_id`).
 *   `AgentMessage` items repeat the assistant's `response_item` and are left out.
 * - `response_item`: the model's items. `message` role `assistant` (`output_text` parts, `id`); role `user` or
 *   `developer` is the prompt as sent, context blocks included (left out: the UserMessage event is the prompt);
 *   `function_call` (`name`, `call_id`, `namespace` `mcp__<server>` for an MCP tool) and `function_call_output`
 *   (`output`: a string, "unsupported call: …" for a tool Codex does not have; other failures are not marked).
 * - `session_meta`, `turn_context`, `world_state`, `token_usage_record` (per response: `usage`, `turn_token_usage`),
 *   `event_msg` `token_count`, `thread_settings_applied` and more: bookkeeping.
 */
import { jsonlObjects } from '../../core/jsonl.js';
import { fields, list, num, str, type Fields } from '../../core/lenient.js';
import { INTERRUPTED, type TranscriptEntry } from '../transcript-entry.js';

/** The `other` detail of a turn's recorded end: the turn's reply is final. */
export const CODEX_TURN_END = 'event_msg:task_complete';

/** What the person typed: an `item_completed` event of a `UserMessage` item. */
function userMessage(p: Fields): { turnId?: string; id?: string; content: readonly unknown[] } | null {
  const item = fields(p.item);
  const content = list(item?.content);
  if (p.type !== 'item_completed' || item?.type !== 'UserMessage' || !content) return null;
  return { turnId: str(p.turn_id), id: str(item.id), content };
}

function assistantMessage(p: Fields): { id?: string; content: readonly unknown[] } | null {
  const content = list(p.content);
  return p.type === 'message' && p.role === 'assistant' && content ? { id: str(p.id), content } : null;
}

function functionCall(p: Fields): { name: string; namespace?: string; callId?: string } | null {
  const name = str(p.name);
  return p.type === 'function_call' && name !== undefined
    ? { name, namespace: str(p.namespace), callId: str(p.call_id) }
    : null;
}

/** What Codex answers a call of a tool it does not have (Leo's MCP server missing, say): the post never happened. */
const UNSUPPORTED_CALL = /^unsupported call: /;

/** A turn that ended in the provider's refusal: its message, and the HTTP status when Codex names one. */
function failedTurn(p: Fields): { message: string; status?: number } | null {
  const error = fields(p.error);
  const message = str(error?.message);
  if (p.type !== 'task_complete' || message === undefined) return null;
  const failed = fields(fields(error?.codex_error_info)?.http_connection_failed);
  return { message, status: num(failed?.http_status_code) };
}

/** Pure: rollout lines (in file order) to entries (in file order). */
export function parseRolloutLines(lines: readonly string[]): TranscriptEntry[] {
  const out: TranscriptEntry[] = [];
  // Codex numbers nothing per turn; the order turn ids first appear in stands for Claude's turn index.
  const turns = new Map<string, number>();
  for (const value of jsonlObjects(lines)) {
    const line = value as Fields;
    const type = str(line.type);
    const payload = fields(line.payload);
    if (type === undefined || !payload) continue;
    const timestamp = str(line.timestamp);
    const payloadType = str(payload.type);
    const base = timestamp ? { timestamp } : {};
    const other = (detail: string) => void out.push({ kind: 'other', detail, ...base });
    if (type === 'event_msg') {
      const user = userMessage(payload);
      if (user) {
        const text = texts(user.content);
        const turn = user.turnId;
        if (turn !== undefined && !turns.has(turn)) turns.set(turn, turns.size);
        if (!text) other('event_msg:user_message_empty');
        else
          out.push({
            kind: 'user_prompt',
            text,
            ...(user.id ? { uuid: user.id } : {}),
            ...(turn !== undefined ? { promptId: turn, turnIndex: turns.get(turn) as number } : {}),
            ...base,
          });
        continue;
      }
      const failed = failedTurn(payload);
      if (failed) {
        const { status } = failed;
        out.push({
          kind: 'turn_error',
          text: failed.message,
          ...(status !== undefined ? { error: `http_${status}` } : {}),
          ...base,
        });
      }
      if (payloadType === 'turn_aborted') other(INTERRUPTED);
      else other(`event_msg:${payloadType ?? 'unknown'}`);
      continue;
    }
    if (type === 'response_item') {
      const message = assistantMessage(payload);
      if (message) {
        const text = texts(message.content);
        out.push({
          kind: 'assistant_text',
          text,
          ...(message.id ? { messageId: message.id } : {}),
          ...base,
        });
        continue;
      }
      const call = functionCall(payload);
      if (call) {
        const { name, namespace } = call;
        out.push({
          kind: 'tool_use',
          // Spelled as Claude names MCP tools (mcp__<server>__<tool>), so one rule finds Leo's post tool in both.
          toolName: namespace && !name.startsWith(`${namespace}__`) ? `${namespace}__${name}` : name,
          ...(call.callId ? { toolUseId: call.callId } : {}),
          ...base,
        });
        continue;
      }
      if (payloadType === 'function_call_output') {
        const call_id = str(payload.call_id);
        const output = payload.output;
        out.push({
          kind: 'tool_result',
          ...(typeof output === 'string' ? { text: output } : {}),
          ...(call_id ? { toolUseId: call_id } : {}),
          ...(typeof output === 'string' && UNSUPPORTED_CALL.test(output) ? { isError: true } : {}),
          ...base,
        });
        continue;
      }
      other(`response_item:${payloadType ?? 'unknown'}`);
      continue;
    }
    other(type);
  }
  return out;
}

const TEXT_PARTS = /^(text|input_text|output_text|Text)$/;

/** The text parts of a content array (`text`, `input_text`, `output_text`), joined by newlines. */
function texts(content: readonly unknown[]): string {
  const out: string[] = [];
  for (const part of content) {
    const p = fields(part);
    const text = str(p?.text);
    if (text === undefined || !TEXT_PARTS.test(str(p?.type) ?? '')) continue;
    if (text.trim()) out.push(text.trim());
  }
  return out.join('\n');
}
