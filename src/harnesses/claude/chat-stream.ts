import type { FinishReason, NewSessionMessage, ToolCall, TokenUsage } from '../../wire/sessions.js';

/**
 * Reads Claude Code's `--output-format stream-json --verbose --include-partial-messages` lines into the chat
 * endpoint's vocabulary. Pure: one line in, the things it means out. Lines it does not know are ignored, so a newer
 * Claude that adds line types still streams.
 *
 * Claude writes one `assistant` line per content block of a model message and the raw API stream as `stream_event`
 * lines; a message is complete at its `message_stop`, which is when it is stored. Tool results arrive as `user` lines.
 */
export type ClaudeStreamItem =
  | { kind: 'init'; sessionId: string }
  | { kind: 'chunk'; content: string }
  | { kind: 'thinking'; content: string }
  | { kind: 'tool'; name: string }
  | { kind: 'message'; message: NewSessionMessage }
  | { kind: 'toolResult'; message: NewSessionMessage; isError: boolean }
  | { kind: 'result'; ok: boolean; text: string | null; usage: TokenUsage; sessionId: string | null; turns: number };

interface Pending {
  text: string;
  thinking: string;
  toolCalls: ToolCall[];
  finish: FinishReason;
  usage: { input: number; output: number; cache: number };
}

const FINISH: Record<string, FinishReason> = { tool_use: 'tool_calls', end_turn: 'stop', max_tokens: 'length' };

export class ClaudeStreamReader {
  private pending: Pending | null = null;
  private iteration = 0;

  read(line: string): ClaudeStreamItem[] {
    let j: any;
    try {
      j = JSON.parse(line);
    } catch {
      return [];
    }
    if (j?.type === 'system' && j.subtype === 'init' && typeof j.session_id === 'string')
      return [{ kind: 'init', sessionId: j.session_id }];
    if (j?.type === 'stream_event' && j.parent_tool_use_id == null) return this.event(j.event);
    if (j?.type === 'user' && j.parent_tool_use_id == null) return this.toolResults(j.message?.content);
    if (j?.type === 'result') {
      const u = j.usage ?? {};
      return [
        {
          kind: 'result',
          ok: j.is_error !== true && j.subtype === 'success',
          text: typeof j.result === 'string' ? j.result : null,
          usage: {
            input: num(u.input_tokens) + num(u.cache_creation_input_tokens),
            output: num(u.output_tokens),
            cache: num(u.cache_read_input_tokens),
            cost: typeof j.total_cost_usd === 'number' ? j.total_cost_usd : 0,
          },
          sessionId: typeof j.session_id === 'string' ? j.session_id : null,
          turns: num(j.num_turns),
        },
      ];
    }
    return [];
  }

  private event(e: any): ClaudeStreamItem[] {
    switch (e?.type) {
      case 'message_start': {
        const u = e.message?.usage ?? {};
        this.pending = {
          text: '',
          thinking: '',
          toolCalls: [],
          finish: 'stop',
          usage: {
            input: num(u.input_tokens) + num(u.cache_creation_input_tokens),
            output: num(u.output_tokens),
            cache: num(u.cache_read_input_tokens),
          },
        };
        return [];
      }
      case 'content_block_start': {
        const b = e.content_block;
        if (b?.type === 'tool_use' && this.pending) {
          this.pending.toolCalls.push({
            id: String(b.id),
            type: 'function',
            function: { name: String(b.name), arguments: '' },
          });
          return [{ kind: 'tool', name: String(b.name) }];
        }
        return [];
      }
      case 'content_block_delta': {
        const d = e.delta;
        if (!this.pending) return [];
        if (d?.type === 'text_delta' && typeof d.text === 'string') {
          this.pending.text += d.text;
          return [{ kind: 'chunk', content: d.text }];
        }
        if (d?.type === 'thinking_delta' && typeof d.thinking === 'string') {
          this.pending.thinking += d.thinking;
          return [{ kind: 'thinking', content: d.thinking }];
        }
        if (d?.type === 'input_json_delta' && typeof d.partial_json === 'string') {
          const call = this.pending.toolCalls.at(-1);
          if (call) call.function.arguments += d.partial_json;
        }
        return [];
      }
      case 'message_delta': {
        if (this.pending) {
          this.pending.finish = FINISH[e.delta?.stop_reason] ?? this.pending.finish;
          this.pending.usage.output = num(e.usage?.output_tokens) || this.pending.usage.output;
        }
        return [];
      }
      case 'message_stop': {
        const p = this.pending;
        this.pending = null;
        if (!p) return [];
        this.iteration++;
        return [
          {
            kind: 'message',
            message: {
              role: 'assistant',
              content: p.text === '' ? null : p.text,
              tool_calls: p.toolCalls.length ? p.toolCalls : null,
              tool_call_id: null,
              thinking_content: p.thinking === '' ? null : p.thinking,
              thinking_tokens: null,
              finishReason: p.toolCalls.length ? 'tool_calls' : p.finish,
              iteration: this.iteration,
              tokenUsage: { ...p.usage, cost: 0 },
            },
          },
        ];
      }
      default:
        return [];
    }
  }

  private toolResults(content: unknown): ClaudeStreamItem[] {
    if (!Array.isArray(content)) return [];
    return content
      .filter((b) => b?.type === 'tool_result')
      .map((b) => ({
        kind: 'toolResult' as const,
        isError: b.is_error === true,
        message: {
          role: 'tool' as const,
          content: resultText(b.content),
          tool_calls: null,
          tool_call_id: String(b.tool_use_id),
        },
      }));
  }
}

function resultText(c: unknown): string {
  if (typeof c === 'string') return c;
  if (Array.isArray(c)) return c.map((b) => (typeof b?.text === 'string' ? b.text : '')).join('');
  return '';
}

function num(v: unknown): number {
  return typeof v === 'number' && Number.isFinite(v) ? v : 0;
}
