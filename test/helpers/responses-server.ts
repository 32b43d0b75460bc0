// A scripted stand-in for the OpenAI Responses API (`POST /v1/responses`, streamed) on 127.0.0.1, so the real Codex
// CLI can run offline in tests: Codex speaks no other wire protocol. It sends the SSE events the real API sends, in
// its order (response.created … response.output_item.done … response.completed); Codex builds its turn from the
// `output_item.done` items and ends it on `response.completed`. What it answers is scripted by the test, and every
// request is recorded so the test can check what Codex sent.
import type http from 'node:http';
import { apiError } from './openai-server.js';
import {
  estimateTokens,
  json,
  ScriptedServer,
  split,
  type RecordedRequest,
  type ListenOptions,
} from './scripted-server.js';

export type { RecordedRequest };

export interface ScriptedFunctionCall {
  name: string;
  /** Serialised as JSON unless already a string. */
  arguments: unknown;
  /**
   * Codex offers MCP tools grouped as `{"type":"namespace","name":"mcp__<server>","tools":[…]}` and answers
   * "unsupported call" to a call of one that does not name its namespace: set `mcp__<server>` for an MCP tool.
   */
  namespace?: string;
  callId?: string;
}

/** One model turn. `text` and `functionCall` may both be set: the message item comes first. */
export interface ScriptedReply {
  text?: string;
  functionCall?: ScriptedFunctionCall;
  /** Spread the reply's deltas over this many ms, so the agent stays busy for a known time. */
  delayMs?: number;
  /** How many output_text.delta events the text is cut into; default 4. */
  chunks?: number;
  /** Answer with this API error instead (a 4xx is one Codex does not retry). */
  error?: { status: number; message: string };
  /** What response.completed reports as usage in place of the estimate (`cached` is input_tokens_details.cached_tokens). */
  usage?: { input_tokens: number; cached: number; output_tokens: number };
}

/**
 * Decides the reply to one Responses request; `index` counts them from 0. Return undefined to fall back to the
 * queue, then to the default reply.
 */
export type ReplyScript = (req: RecordedRequest, info: { index: number }) => ScriptedReply | undefined;

export interface ResponsesServerOptions extends ListenOptions {
  /** Replies for the model turns, consumed in order. */
  replies?: ScriptedReply[];
  script?: ReplyScript;
  /** What any turn gets once the queue is empty. */
  defaultReply?: ScriptedReply;
}

type Event = { type: string; [k: string]: unknown };

export class ResponsesServer extends ScriptedServer<ScriptedReply> {
  private constructor(private readonly opts: ResponsesServerOptions) {
    super(opts.replies, opts.defaultReply ?? { text: 'OK.' });
  }

  static start(opts: ResponsesServerOptions = {}): Promise<ResponsesServer> {
    return new ResponsesServer(opts).listen(opts);
  }

  /** For a model provider's `base_url`: Codex appends /responses itself. */
  get baseUrl(): string {
    return `${this.origin}/v1`;
  }

  /** The POST /v1/responses requests: every model turn Codex asked for. */
  responseRequests(): RecordedRequest[] {
    return this.requests.filter((r) => r.method === 'POST' && r.path === '/v1/responses');
  }

  /** The typed prompts of all turns so far (see userPrompts), each once. */
  prompts(): string[] {
    return [...new Set(this.responseRequests().flatMap((r) => userPrompts(r.body)))];
  }

  protected route(rec: RecordedRequest, res: http.ServerResponse): void {
    if (rec.method === 'POST' && rec.path === '/v1/responses') {
      if (!rec.body || !Array.isArray(rec.body.input)) {
        return apiError(res, 400, 'invalid_request_error', "Missing required parameter: 'input'.");
      }
      const reply = this.pick(rec);
      if (reply.error) return apiError(res, reply.error.status, 'invalid_request_error', reply.error.message);
      if (rec.body.stream !== true)
        return json(res, 200, this.response(rec, this.items(reply), 'completed', undefined, reply.usage));
      return void this.stream(rec, reply, res);
    }
    apiError(res, 404, 'invalid_request_error', `Unknown request URL: ${rec.method} ${rec.path}`);
  }

  private pick(rec: RecordedRequest): ScriptedReply {
    return this.answer(this.opts.script?.(rec, { index: this.responseRequests().length - 1 }));
  }

  /** The finished output items of a reply, as `response.output_item.done` and `response.completed` carry them. */
  private items(reply: ScriptedReply): Record<string, unknown>[] {
    const out: Record<string, unknown>[] = [];
    if (reply.text !== undefined) {
      out.push({
        type: 'message',
        id: this.id('msg_leo'),
        status: 'completed',
        role: 'assistant',
        content: [{ type: 'output_text', text: reply.text, annotations: [] }],
      });
    }
    const call = reply.functionCall;
    if (call) {
      out.push({
        type: 'function_call',
        id: this.id('fc_leo'),
        status: 'completed',
        call_id: call.callId ?? this.id('call_leo'),
        name: call.name,
        ...(call.namespace === undefined ? {} : { namespace: call.namespace }),
        arguments: typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments ?? {}),
      });
    }
    return out;
  }

  private response(
    rec: RecordedRequest,
    output: Record<string, unknown>[],
    status: string,
    id?: string,
    reported?: ScriptedReply['usage'],
  ) {
    return {
      id: id ?? this.id('resp_leo'),
      object: 'response',
      created_at: Math.floor(rec.at / 1000),
      status,
      model: typeof rec.body?.model === 'string' ? rec.body.model : 'gpt-test',
      output,
      usage: status === 'completed' ? (reported ? reportedUsage(reported) : usage(rec.body, output)) : null,
    };
  }

  private async stream(rec: RecordedRequest, reply: ScriptedReply, res: http.ServerResponse): Promise<void> {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
    const id = this.id('resp_leo');
    const items = this.items(reply);
    // Each group goes out at once; the reply's delay is spread over the groups that carry deltas.
    const groups: { events: Event[]; delta: boolean }[] = [];
    items.forEach((item, output_index) => {
      if (item.type === 'message') {
        const text = reply.text ?? '';
        const part = { type: 'output_text', text: '', annotations: [] };
        const base = { item_id: item.id, output_index, content_index: 0 };
        groups.push({
          delta: false,
          events: [
            { type: 'response.output_item.added', output_index, item: { ...item, status: 'in_progress', content: [] } },
            { type: 'response.content_part.added', ...base, part },
          ],
        });
        for (const delta of split(text, reply.chunks ?? 4))
          groups.push({ delta: true, events: [{ type: 'response.output_text.delta', ...base, delta }] });
        groups.push({
          delta: false,
          events: [
            { type: 'response.output_text.done', ...base, text },
            { type: 'response.content_part.done', ...base, part: { ...part, text } },
            { type: 'response.output_item.done', output_index, item },
          ],
        });
      } else {
        const args = String(item.arguments);
        const base = { item_id: item.id, output_index };
        groups.push({
          delta: false,
          events: [
            {
              type: 'response.output_item.added',
              output_index,
              item: { ...item, status: 'in_progress', arguments: '' },
            },
          ],
        });
        for (const delta of split(args, 2))
          groups.push({ delta: true, events: [{ type: 'response.function_call_arguments.delta', ...base, delta }] });
        groups.push({
          delta: false,
          events: [
            { type: 'response.function_call_arguments.done', ...base, arguments: args },
            { type: 'response.output_item.done', output_index, item },
          ],
        });
      }
    });
    groups.push({
      delta: false,
      events: [{ type: 'response.completed', response: this.response(rec, items, 'completed', id, reply.usage) }],
    });

    let sequence_number = 0;
    const send = (e: Event) =>
      res.write(`event: ${e.type}\ndata: ${JSON.stringify({ ...e, sequence_number: sequence_number++ })}\n\n`);
    const started = this.response(rec, [], 'in_progress', id);
    send({ type: 'response.created', response: started });
    send({ type: 'response.in_progress', response: started });
    const stepMs = (reply.delayMs ?? 0) / Math.max(1, groups.filter((g) => g.delta).length);
    for (const group of groups) {
      if (stepMs > 0 && group.delta) await this.sleep(stepMs);
      if (this.stopped(res)) return;
      for (const e of group.events) send(e);
    }
    res.end();
  }
}

/**
 * Codex sends its context as user-role messages too: the workspace's AGENTS.md, `<environment_context>`,
 * `<user_instructions>` and the like, each one tagged block. A typed prompt is any other user text.
 */
const CONTEXT_BLOCK = /^(<[a-z_]+>[\s\S]*<\/[a-z_]+>|# AGENTS\.md instructions for [\s\S]*)$/;

/** The text a person typed, from a Responses request body: the user messages' input_text parts, context left out. */
export function userPrompts(body: any): string[] {
  const out: string[] = [];
  for (const item of Array.isArray(body?.input) ? body.input : []) {
    if (item?.type !== 'message' || item.role !== 'user') continue;
    const parts = typeof item.content === 'string' ? [{ type: 'input_text', text: item.content }] : item.content;
    for (const p of Array.isArray(parts) ? parts : []) {
      if (p?.type !== 'input_text' || typeof p.text !== 'string') continue;
      const text = p.text.trim();
      if (text && !CONTEXT_BLOCK.test(text)) out.push(text);
    }
  }
  return out;
}

/** The output of the function_call_output answering call `callId` in a request, if it holds one. */
export function functionCallOutput(body: any, callId: string): string | undefined {
  const items: any[] = Array.isArray(body?.input) ? body.input : [];
  const hit = items.find((i) => i?.type === 'function_call_output' && i.call_id === callId);
  if (hit === undefined) return undefined;
  return typeof hit.output === 'string' ? hit.output : JSON.stringify(hit.output);
}

function usage(body: unknown, output: unknown) {
  const input = estimateTokens(body);
  const out = estimateTokens(output);
  return {
    input_tokens: input,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: out,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: input + out,
  };
}

function reportedUsage(u: NonNullable<ScriptedReply['usage']>) {
  return {
    input_tokens: u.input_tokens,
    input_tokens_details: { cached_tokens: u.cached },
    output_tokens: u.output_tokens,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: u.input_tokens + u.output_tokens,
  };
}
