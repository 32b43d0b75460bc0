// A scripted stand-in for the Anthropic Messages API on 127.0.0.1, so the real Claude Code CLI can run offline in
// tests. It speaks the wire format Claude parses (SSE event names and payload shapes as the real API sends them);
// what it answers is scripted by the test, and every request is recorded so the test can check what Claude sent.
import type http from 'node:http';
import {
  estimateTokens,
  json,
  ScriptedServer,
  split,
  type RecordedRequest,
  type ListenOptions,
} from './scripted-server.js';

export type { RecordedRequest };

/** One assistant turn. `text` and `toolUse` may both be set: the text block comes first, as the real API orders them. */
export interface ScriptedReply {
  text?: string;
  toolUse?: { name: string; input: unknown; id?: string };
  /**
   * Spread the reply's deltas over this many ms instead of sending them at once, so the agent stays busy (spinner
   * running, output streaming) for a known time. message_start goes out at once, like a real slow generation.
   */
  delayMs?: number;
  /** How many text_delta events the text is cut into; default 4. */
  chunks?: number;
  /**
   * Holds the rest of the reply after its first delta until this settles, so a test decides when the turn can end:
   * the agent shows the start of its answer and keeps its spinner meanwhile, as behind a slow model.
   */
  hold?: Promise<unknown>;
  /** What the response reports as its usage in place of the estimate (message_start's input and cache counts,
   * message_delta's output count, as the API splits them). */
  usage?: Partial<ReturnType<typeof usage>>;
  /** Answer with this API error instead (status and the Anthropic error envelope's type and message). */
  error?: { status: number; type: string; message: string };
}

/**
 * Decides the reply to one streamed model turn. Return undefined to fall back to the queue, then to the default
 * reply. `sideRequest` is true for Claude's own helper calls (no tools offered), which a test rarely means to script.
 */
export type ReplyScript = (req: RecordedRequest, info: { sideRequest: boolean }) => ScriptedReply | undefined;

export interface AnthropicServerOptions extends ListenOptions {
  /** Replies for the agent's turns, consumed in order; side requests never take from it. */
  replies?: ScriptedReply[];
  script?: ReplyScript;
  /** What any turn gets once the queue is empty. */
  defaultReply?: ScriptedReply;
  /** The model name echoed in responses when the request names none. */
  model?: string;
}

const DEFAULT_MODEL = 'claude-sonnet-4-5';

export class AnthropicServer extends ScriptedServer<ScriptedReply> {
  private constructor(private readonly opts: AnthropicServerOptions) {
    super(opts.replies, opts.defaultReply ?? { text: 'OK.' });
  }

  static start(opts: AnthropicServerOptions = {}): Promise<AnthropicServer> {
    return new AnthropicServer(opts).listen(opts);
  }

  /** For ANTHROPIC_BASE_URL: Claude appends /v1/messages itself. */
  get url(): string {
    return this.origin;
  }

  /** The streamed POST /v1/messages requests: every model turn Claude asked for. */
  messageRequests(): RecordedRequest[] {
    return this.requests.filter((r) => r.method === 'POST' && r.path === '/v1/messages' && r.body?.stream === true);
  }

  /** The typed prompts of all agent turns so far (see userPrompts); Claude's own side requests are left out. */
  prompts(): string[] {
    const turns = this.messageRequests().filter((r) => isAgentTurn(r.body));
    return [...new Set(turns.flatMap((r) => userPrompts(r.body)))];
  }

  protected route(rec: RecordedRequest, res: http.ServerResponse): void {
    if (rec.method === 'POST' && rec.path === '/v1/messages/count_tokens') {
      return json(res, 200, { input_tokens: estimateTokens(rec.body) });
    }
    if (rec.method === 'POST' && rec.path === '/v1/messages') {
      if (!rec.body || !Array.isArray(rec.body.messages)) {
        return apiError(res, 400, 'invalid_request_error', 'messages: field required');
      }
      const reply = this.pick(rec);
      if (reply.error) return apiError(res, reply.error.status, reply.error.type, reply.error.message);
      if (rec.body.stream === true) return void this.stream(rec, reply, res);
      return json(res, 200, this.message(rec, reply));
    }
    if (rec.method === 'GET' && rec.path === '/v1/models') {
      const model = this.opts.model ?? DEFAULT_MODEL;
      const data = [{ type: 'model', id: model, display_name: model, created_at: '2025-01-01T00:00:00Z' }];
      return json(res, 200, { data, has_more: false, first_id: model, last_id: model });
    }
    // Claude's connectivity check (skipped under CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC).
    if ((rec.method === 'HEAD' || rec.method === 'GET') && rec.path === '/api/hello') return json(res, 200, {});
    apiError(res, 404, 'not_found_error', `Not found: ${rec.method} ${rec.path}`);
  }

  private pick(rec: RecordedRequest): ScriptedReply {
    const sideRequest = !isAgentTurn(rec.body);
    return this.answer(this.opts.script?.(rec, { sideRequest }), !sideRequest);
  }

  private modelOf(rec: RecordedRequest): string {
    return typeof rec.body?.model === 'string' ? rec.body.model : (this.opts.model ?? DEFAULT_MODEL);
  }

  private message(rec: RecordedRequest, reply: ScriptedReply) {
    const content: unknown[] = [];
    if (reply.text !== undefined) content.push({ type: 'text', text: reply.text });
    if (reply.toolUse)
      content.push({ type: 'tool_use', ...toolBlock(reply, this.id('toolu_leo_')), input: reply.toolUse.input });
    return {
      id: this.id('msg_leo_'),
      type: 'message',
      role: 'assistant',
      model: this.modelOf(rec),
      content,
      stop_reason: reply.toolUse ? 'tool_use' : 'end_turn',
      stop_sequence: null,
      usage: { ...usage(rec.body, outputTokens(reply)), ...reply.usage },
    };
  }

  private async stream(rec: RecordedRequest, reply: ScriptedReply, res: http.ServerResponse): Promise<void> {
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
      'request-id': this.id('req_leo_'),
    });
    const events: { type: string; [k: string]: unknown }[][] = [];
    let index = 0;
    if (reply.text !== undefined) {
      const i = index++;
      events.push([{ type: 'content_block_start', index: i, content_block: { type: 'text', text: '' } }]);
      for (const piece of split(reply.text, reply.chunks ?? 4))
        events.push([{ type: 'content_block_delta', index: i, delta: { type: 'text_delta', text: piece } }]);
      events.push([{ type: 'content_block_stop', index: i }]);
    }
    if (reply.toolUse) {
      const i = index++;
      events.push([
        {
          type: 'content_block_start',
          index: i,
          content_block: { type: 'tool_use', ...toolBlock(reply, this.id('toolu_leo_')), input: {} },
        },
      ]);
      for (const piece of split(JSON.stringify(reply.toolUse.input ?? {}), 2))
        events.push([
          { type: 'content_block_delta', index: i, delta: { type: 'input_json_delta', partial_json: piece } },
        ]);
      events.push([{ type: 'content_block_stop', index: i }]);
    }
    events.push([
      {
        type: 'message_delta',
        delta: { stop_reason: reply.toolUse ? 'tool_use' : 'end_turn', stop_sequence: null },
        usage: { output_tokens: reply.usage?.output_tokens ?? outputTokens(reply) },
      },
      { type: 'message_stop' },
    ]);

    const send = (e: { type: string; [k: string]: unknown }) =>
      res.write(`event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`);
    send({
      type: 'message_start',
      message: {
        id: this.id('msg_leo_'),
        type: 'message',
        role: 'assistant',
        model: this.modelOf(rec),
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: { ...usage(rec.body, 1), ...reply.usage, output_tokens: 1 },
      },
    });
    send({ type: 'ping' });
    // The delay is spread over the deltas; block starts and stops go out with their neighbours, as the API sends them.
    const isDelta = (group: { type: string }[]) => group.some((e) => e.type === 'content_block_delta');
    const stepMs = (reply.delayMs ?? 0) / Math.max(1, events.filter(isDelta).length);
    let held = !reply.hold;
    for (const group of events) {
      if (stepMs > 0 && isDelta(group)) await this.sleep(stepMs);
      if (this.stopped(res)) return;
      for (const e of group) send(e);
      if (!held && isDelta(group)) {
        held = true;
        await this.until(reply.hold!);
        if (this.stopped(res)) return;
      }
    }
    res.end();
  }
}

/**
 * Claude's own helper calls (titles, summaries, checks) offer no tools; the agent loop always does. Counting only
 * the latter keeps a test's queue in step with the turns it is scripting.
 */
export function isAgentTurn(body: any): boolean {
  return Array.isArray(body?.tools) && body.tools.length > 0;
}

/**
 * The text a person typed, from a Messages request body: the user messages' text blocks, without the
 * `<system-reminder>` blocks Claude wraps its context in and without the `role: "system"` messages recent versions
 * append after the user turn.
 */
export function userPrompts(body: any): string[] {
  const out: string[] = [];
  for (const m of Array.isArray(body?.messages) ? body.messages : []) {
    if (m?.role !== 'user') continue;
    const blocks = typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : m.content;
    for (const b of Array.isArray(blocks) ? blocks : []) {
      if (b?.type !== 'text' || typeof b.text !== 'string') continue;
      const text = b.text.replace(/<system-reminder>[\s\S]*?<\/system-reminder>/g, '').trim();
      if (text) out.push(text);
    }
  }
  return out;
}

function toolBlock(reply: ScriptedReply, fallbackId: string): { id: string; name: string } {
  return { id: reply.toolUse!.id ?? fallbackId, name: reply.toolUse!.name };
}

function outputTokens(reply: ScriptedReply): number {
  return Math.max(1, Math.ceil(((reply.text ?? '').length + JSON.stringify(reply.toolUse?.input ?? '').length) / 4));
}

function usage(body: unknown, output: number) {
  return {
    input_tokens: estimateTokens(body),
    cache_creation_input_tokens: 0,
    cache_read_input_tokens: 0,
    output_tokens: output,
  };
}

function apiError(res: http.ServerResponse, status: number, type: string, message: string): void {
  json(res, status, { type: 'error', error: { type, message } });
}

/** The last user-role message of a request: what this model call is answering (a prompt or a tool result). */
export function lastUserMessage(body: any): any {
  const messages: any[] = Array.isArray(body?.messages) ? body.messages : [];
  return messages.filter((m) => m?.role === 'user').at(-1);
}

/** A message's content as blocks, a bare string content read as one text block. */
export function contentBlocks(message: any): any[] {
  if (typeof message?.content === 'string') return [{ type: 'text', text: message.content }];
  return Array.isArray(message?.content) ? message.content : [];
}

/** The tool_result block answering tool call `id` in this message, if it holds one. */
export function toolResult(message: any, id: string): any {
  return contentBlocks(message).find((b) => b?.type === 'tool_result' && b.tool_use_id === id);
}

export function mentions(message: any, text: string): boolean {
  return contentBlocks(message).some((b) => b?.type === 'text' && typeof b.text === 'string' && b.text.includes(text));
}
