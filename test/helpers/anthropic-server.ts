// A scripted stand-in for the Anthropic Messages API on 127.0.0.1, so the real Claude Code CLI can run offline in
// tests. It speaks the wire format Claude parses (SSE event names and payload shapes as the real API sends them);
// what it answers is scripted by the test, and every request is recorded so the test can check what Claude sent.
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

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
}

export interface RecordedRequest {
  method: string;
  /** Path without the query string. */
  path: string;
  query: URLSearchParams;
  headers: http.IncomingHttpHeaders;
  /** Parsed JSON body, undefined when there was none or it was not JSON. */
  body: any;
  /** Real time it arrived (Date.now()). */
  at: number;
}

/**
 * Decides the reply to one streamed model turn. Return undefined to fall back to the queue, then to the default
 * reply. `sideRequest` is true for Claude's own helper calls (no tools offered), which a test rarely means to script.
 */
export type ReplyScript = (req: RecordedRequest, info: { sideRequest: boolean }) => ScriptedReply | undefined;

export interface AnthropicServerOptions {
  /** Replies for the agent's turns, consumed in order; side requests never take from it. */
  replies?: ScriptedReply[];
  script?: ReplyScript;
  /** What any turn gets once the queue is empty. */
  defaultReply?: ScriptedReply;
  /** The model name echoed in responses when the request names none. */
  model?: string;
}

const DEFAULT_MODEL = 'claude-sonnet-4-5';

export class AnthropicServer {
  readonly requests: RecordedRequest[] = [];
  private readonly queue: ScriptedReply[];
  private readonly sockets = new Set<Socket>();
  private readonly timers = new Map<NodeJS.Timeout, () => void>();
  private closed = false;
  private seq = 0;

  private constructor(
    private readonly server: http.Server,
    private readonly opts: AnthropicServerOptions,
  ) {
    this.queue = [...(opts.replies ?? [])];
  }

  static async start(opts: AnthropicServerOptions = {}): Promise<AnthropicServer> {
    let self: AnthropicServer | undefined;
    const server = http.createServer((req, res) => self!.handle(req, res));
    self = new AnthropicServer(server, opts);
    server.on('connection', (s) => {
      self!.sockets.add(s);
      s.on('close', () => self!.sockets.delete(s));
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    return self;
  }

  /** For ANTHROPIC_BASE_URL: Claude appends /v1/messages itself. */
  get url(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** Adds replies for the next agent turns. */
  enqueue(...replies: ScriptedReply[]): void {
    this.queue.push(...replies);
  }

  /** The streamed POST /v1/messages requests: every model turn Claude asked for. */
  messageRequests(): RecordedRequest[] {
    return this.requests.filter((r) => r.method === 'POST' && r.path === '/v1/messages' && r.body?.stream === true);
  }

  /** Every distinct `METHOD path` seen, in order of first appearance: what the client called at all. */
  endpoints(): string[] {
    return [...new Set(this.requests.map((r) => `${r.method} ${r.path}`))];
  }

  /** The typed prompts of all agent turns so far (see userPrompts); Claude's own side requests are left out. */
  prompts(): string[] {
    const turns = this.messageRequests().filter((r) => isAgentTurn(r.body));
    return [...new Set(turns.flatMap((r) => userPrompts(r.body)))];
  }

  async waitForRequest(pred: (r: RecordedRequest) => boolean, timeoutMs = 10_000): Promise<RecordedRequest> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const hit = this.requests.find(pred);
      if (hit) return hit;
      if (Date.now() > deadline) throw new Error(`no matching request within ${timeoutMs} ms; saw ${this.endpoints()}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const [t, wake] of this.timers) {
      clearTimeout(t);
      wake();
    }
    this.timers.clear();
    // Claude keeps its connections alive; without this close() would wait for it to hang up.
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://localhost');
      const raw = Buffer.concat(chunks).toString('utf8');
      let body: any;
      try {
        body = raw ? JSON.parse(raw) : undefined;
      } catch {
        body = undefined;
      }
      const rec: RecordedRequest = {
        method: req.method ?? 'GET',
        path: url.pathname,
        query: url.searchParams,
        headers: req.headers,
        body,
        at: Date.now(),
      };
      this.requests.push(rec);
      this.route(rec, res);
    });
  }

  private route(rec: RecordedRequest, res: http.ServerResponse): void {
    if (rec.method === 'POST' && rec.path === '/v1/messages/count_tokens') {
      return json(res, 200, { input_tokens: estimateTokens(rec.body) });
    }
    if (rec.method === 'POST' && rec.path === '/v1/messages') {
      if (!rec.body || !Array.isArray(rec.body.messages)) {
        return apiError(res, 400, 'invalid_request_error', 'messages: field required');
      }
      const reply = this.pick(rec);
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
    const scripted = this.opts.script?.(rec, { sideRequest });
    if (scripted) return scripted;
    if (!sideRequest && this.queue.length) return this.queue.shift()!;
    return this.opts.defaultReply ?? { text: 'OK.' };
  }

  private modelOf(rec: RecordedRequest): string {
    return typeof rec.body?.model === 'string' ? rec.body.model : (this.opts.model ?? DEFAULT_MODEL);
  }

  private message(rec: RecordedRequest, reply: ScriptedReply) {
    const content: unknown[] = [];
    if (reply.text !== undefined) content.push({ type: 'text', text: reply.text });
    if (reply.toolUse) content.push({ type: 'tool_use', ...toolBlock(reply, ++this.seq), input: reply.toolUse.input });
    return {
      id: `msg_leo_${++this.seq}`,
      type: 'message',
      role: 'assistant',
      model: this.modelOf(rec),
      content,
      stop_reason: reply.toolUse ? 'tool_use' : 'end_turn',
      stop_sequence: null,
      usage: usage(rec.body, outputTokens(reply)),
    };
  }

  private async stream(rec: RecordedRequest, reply: ScriptedReply, res: http.ServerResponse): Promise<void> {
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      connection: 'keep-alive',
      'request-id': `req_leo_${++this.seq}`,
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
          content_block: { type: 'tool_use', ...toolBlock(reply, ++this.seq), input: {} },
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
        usage: { output_tokens: outputTokens(reply) },
      },
      { type: 'message_stop' },
    ]);

    const send = (e: { type: string; [k: string]: unknown }) =>
      res.write(`event: ${e.type}\ndata: ${JSON.stringify(e)}\n\n`);
    send({
      type: 'message_start',
      message: {
        id: `msg_leo_${++this.seq}`,
        type: 'message',
        role: 'assistant',
        model: this.modelOf(rec),
        content: [],
        stop_reason: null,
        stop_sequence: null,
        usage: usage(rec.body, 1),
      },
    });
    send({ type: 'ping' });
    // The delay is spread over the deltas; block starts and stops go out with their neighbours, as the API sends them.
    const isDelta = (group: { type: string }[]) => group.some((e) => e.type === 'content_block_delta');
    const stepMs = (reply.delayMs ?? 0) / Math.max(1, events.filter(isDelta).length);
    let held = !reply.hold;
    for (const group of events) {
      if (stepMs > 0 && isDelta(group)) await this.sleep(stepMs);
      if (res.destroyed || this.closed) return;
      for (const e of group) send(e);
      if (!held && isDelta(group)) {
        held = true;
        await this.until(reply.hold!);
        if (res.destroyed || this.closed) return;
      }
    }
    res.end();
  }

  /** Waits for `p`, or for close(): a test ending with a reply held does not wait for it. */
  private until(p: Promise<unknown>): Promise<void> {
    return new Promise((resolve) => {
      const t = setTimeout(() => {}, 2 ** 31 - 1);
      this.timers.set(t, resolve);
      const done = () => {
        clearTimeout(t);
        this.timers.delete(t);
        resolve();
      };
      p.then(done, done);
    });
  }

  /** A timer close() can cut short, so a test ending mid-reply does not wait for the script. */
  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const t = setTimeout(() => {
        this.timers.delete(t);
        resolve();
      }, ms);
      this.timers.set(t, resolve);
    });
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

function toolBlock(reply: ScriptedReply, seq: number): { id: string; name: string } {
  return { id: reply.toolUse!.id ?? `toolu_leo_${seq}`, name: reply.toolUse!.name };
}

function split(text: string, parts: number): string[] {
  if (text === '') return [''];
  const n = Math.max(1, Math.min(parts, text.length));
  const size = Math.ceil(text.length / n);
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

function estimateTokens(body: unknown): number {
  return Math.max(1, Math.ceil(JSON.stringify(body ?? '').length / 4));
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

function json(res: http.ServerResponse, status: number, value: unknown): void {
  const text = JSON.stringify(value);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
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
