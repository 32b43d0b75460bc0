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
import { z } from 'zod';
import { jsonlObjects } from '../../core/jsonl.js';
import { INTERRUPTED, type TranscriptEntry } from '../transcript-entry.js';

/** The `other` detail of a turn's recorded end: the turn's reply is final. */
export const CODEX_TURN_END = 'event_msg:task_complete';

const opt = <T extends z.ZodType>(schema: T) => schema.optional().catch(undefined);

const Line = z.object({
  type: z.string(),
  timestamp: opt(z.string()),
  payload: opt(z.looseObject({ type: opt(z.string()) })),
});

const UserMessageEvent = z.object({
  type: z.literal('item_completed'),
  turn_id: opt(z.string()),
  item: z.object({
    type: z.literal('UserMessage'),
    id: opt(z.string()),
    content: z.array(z.unknown()),
  }),
});

const AssistantMessage = z.object({
  type: z.literal('message'),
  role: z.literal('assistant'),
  id: opt(z.string()),
  content: z.array(z.unknown()),
});

const FunctionCall = z.object({
  type: z.literal('function_call'),
  name: z.string(),
  namespace: opt(z.string()),
  call_id: opt(z.string()),
});

const FunctionCallOutput = z.object({
  type: z.literal('function_call_output'),
  call_id: opt(z.string()),
  output: opt(z.unknown()),
});

/** What Codex answers a call of a tool it does not have (Leo's MCP server missing, say): the post never happened. */
const UNSUPPORTED_CALL = /^unsupported call: /;

const Text = z.object({ type: z.string(), text: z.string() });

const FailedTurn = z.object({
  type: z.literal('task_complete'),
  error: z.object({
    message: z.string(),
    codex_error_info: opt(z.object({ http_connection_failed: opt(z.object({ http_status_code: opt(z.number()) })) })),
  }),
});

/** Pure: rollout lines (in file order) to entries (in file order). */
export function parseRolloutLines(lines: readonly string[]): TranscriptEntry[] {
  const out: TranscriptEntry[] = [];
  // Codex numbers nothing per turn; the order turn ids first appear in stands for Claude's turn index.
  const turns = new Map<string, number>();
  for (const value of jsonlObjects(lines)) {
    const head = Line.safeParse(value);
    if (!head.success || !head.data.payload) continue;
    const { type, payload } = head.data;
    const base = head.data.timestamp ? { timestamp: head.data.timestamp } : {};
    const other = (detail: string) => void out.push({ kind: 'other', detail, ...base });
    if (type === 'event_msg') {
      const user = UserMessageEvent.safeParse(payload);
      if (user.success) {
        const text = texts(user.data.item.content);
        const turn = user.data.turn_id;
        if (turn !== undefined && !turns.has(turn)) turns.set(turn, turns.size);
        if (!text) other('event_msg:user_message_empty');
        else
          out.push({
            kind: 'user_prompt',
            text,
            ...(user.data.item.id ? { uuid: user.data.item.id } : {}),
            ...(turn !== undefined ? { promptId: turn, turnIndex: turns.get(turn) as number } : {}),
            ...base,
          });
        continue;
      }
      const failed = FailedTurn.safeParse(payload);
      if (failed.success) {
        const status = failed.data.error.codex_error_info?.http_connection_failed?.http_status_code;
        out.push({
          kind: 'turn_error',
          text: failed.data.error.message,
          ...(status !== undefined ? { error: `http_${status}` } : {}),
          ...base,
        });
      }
      if (payload.type === 'turn_aborted') other(INTERRUPTED);
      else other(`event_msg:${payload.type ?? 'unknown'}`);
      continue;
    }
    if (type === 'response_item') {
      const message = AssistantMessage.safeParse(payload);
      if (message.success) {
        const text = texts(message.data.content);
        out.push({
          kind: 'assistant_text',
          text,
          ...(message.data.id ? { messageId: message.data.id } : {}),
          ...base,
        });
        continue;
      }
      const call = FunctionCall.safeParse(payload);
      if (call.success) {
        const { name, namespace } = call.data;
        out.push({
          kind: 'tool_use',
          // Spelled as Claude names MCP tools (mcp__<server>__<tool>), so one rule finds Leo's post tool in both.
          toolName: namespace && !name.startsWith(`${namespace}__`) ? `${namespace}__${name}` : name,
          ...(call.data.call_id ? { toolUseId: call.data.call_id } : {}),
          ...base,
        });
        continue;
      }
      const result = FunctionCallOutput.safeParse(payload);
      if (result.success) {
        const { call_id, output } = result.data;
        out.push({
          kind: 'tool_result',
          ...(typeof output === 'string' ? { text: output } : {}),
          ...(call_id ? { toolUseId: call_id } : {}),
          ...(typeof output === 'string' && UNSUPPORTED_CALL.test(output) ? { isError: true } : {}),
          ...base,
        });
        continue;
      }
      other(`response_item:${payload.type ?? 'unknown'}`);
      continue;
    }
    other(type);
  }
  return out;
}

/** The text parts of a content array (`text`, `input_text`, `output_text`), joined by newlines. */
function texts(content: readonly unknown[]): string {
  return content
    .map((part) => Text.safeParse(part).data)
    .filter((p) => p !== undefined && /^(text|input_text|output_text|Text)$/.test(p.type))
    .map((p) => p!.text.trim())
    .filter(Boolean)
    .join('\n');
}
