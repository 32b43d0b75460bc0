// A scripted stand-in for an OpenAI-compatible `/v1/chat/completions` endpoint on 127.0.0.1, so the openai engine can
// run its whole loop offline in tests. It speaks the wire format real providers send (SSE `chat.completion.chunk`
// payloads ending in `data: [DONE]`, or one `chat.completion` JSON object); what it answers, and how it fails, is
// scripted by the test, and every request is recorded so the test can check what the engine sent.
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

export interface ScriptedToolCall {
  name: string;
  /** Serialised as JSON unless already a string (a string lets a test send arguments that are not valid JSON). */
  arguments: unknown;
  id?: string;
  /** How many deltas `function.arguments` is cut into; default 3. */
  fragments?: number;
}

/** One model reply, or one way of failing to give it. */
export interface ScriptedReply {
  text?: string;
  /** How many content deltas the text is cut into; default 4. */
  chunks?: number;
  reasoning?: string;
  /** Which delta field carries the reasoning: DeepSeek's `reasoning_content` (default) or OpenRouter's `reasoning`. */
  reasoningField?: 'reasoning_content' | 'reasoning';
  /** How many deltas the reasoning is cut into; default 3. */
  reasoningChunks?: number;
  toolCalls?: ScriptedToolCall[];
  /** Default: `tool_calls` when the reply has tool calls, else `stop`. */
  finishReason?: 'stop' | 'tool_calls' | 'length';
  /** Overrides the estimated usage reported in the final chunk. */
  usage?: { prompt_tokens?: number; completion_tokens?: number; cached_tokens?: number; reasoning_tokens?: number };
  /** Wait this long before each chunk after the first, so the reply streams over a known time. */
  chunkDelayMs?: number;
  /** Answer with this HTTP error instead of a reply. */
  error?: { status: number; retryAfterSeconds?: number; message?: string };
  /** Destroy the connection after this many chunks have gone out, as a dropped connection does. */
  cutAfterChunks?: number;
}

/**
 * Decides the reply to one completion request; `index` counts completion requests from 0. Return undefined to fall
 * back to the queue, then to the default reply.
 */
export type ReplyScript = (req: RecordedRequest, info: { index: number }) => ScriptedReply | undefined;

export interface OpenAiServerOptions extends ListenOptions {
  /** Replies for the completion requests, consumed in order. */
  replies?: ScriptedReply[];
  script?: ReplyScript;
  /** What any request gets once the queue is empty. */
  defaultReply?: ScriptedReply;
}

type Chunk = Record<string, unknown>;

export class OpenAiServer extends ScriptedServer<ScriptedReply> {
  private constructor(private readonly opts: OpenAiServerOptions) {
    super(opts.replies, opts.defaultReply ?? { text: 'OK.' });
  }

  static start(opts: OpenAiServerOptions = {}): Promise<OpenAiServer> {
    return new OpenAiServer(opts).listen(opts);
  }

  /** The base URL an OpenAI client takes (it appends /chat/completions itself). */
  get baseUrl(): string {
    return `${this.origin}/v1`;
  }

  completionRequests(): RecordedRequest[] {
    return this.requests.filter((r) => r.method === 'POST' && r.path === '/v1/chat/completions');
  }

  /** The text of every user message of every completion request so far, each once: what a client was told to answer. */
  prompts(): string[] {
    return [...new Set(this.completionRequests().flatMap((r) => userTexts(r.body)))];
  }

  protected route(rec: RecordedRequest, res: http.ServerResponse): void {
    if (rec.method !== 'POST' || rec.path !== '/v1/chat/completions') {
      return apiError(res, 404, 'invalid_request_error', `Unknown request URL: ${rec.method} ${rec.path}`);
    }
    if (!rec.body || !Array.isArray(rec.body.messages)) {
      return apiError(res, 400, 'invalid_request_error', "Missing required parameter: 'messages'.");
    }
    const reply = this.pick(rec);
    if (reply.error) {
      const { status, retryAfterSeconds, message } = reply.error;
      const headers = retryAfterSeconds === undefined ? {} : { 'retry-after': String(retryAfterSeconds) };
      // The error type OpenAI sends with each status; opencode retries any error whose body says server_error.
      const [type, fallback] =
        status === 429
          ? ['rate_limit_exceeded', 'Rate limit reached']
          : status === 401
            ? ['invalid_request_error', 'Incorrect API key provided.']
            : ['server_error', 'Internal error'];
      return apiError(res, status, type, message ?? fallback, headers);
    }
    if (rec.body.stream === true) return void this.stream(rec, reply, res);
    json(res, 200, this.completion(rec, reply));
  }

  private pick(rec: RecordedRequest): ScriptedReply {
    return this.answer(this.opts.script?.(rec, { index: this.completionRequests().length - 1 }));
  }

  private completion(rec: RecordedRequest, reply: ScriptedReply) {
    const message: Record<string, unknown> = { role: 'assistant', content: reply.text ?? null };
    if (reply.reasoning !== undefined) message[reply.reasoningField ?? 'reasoning_content'] = reply.reasoning;
    const calls = this.toolCalls(reply);
    if (calls.length) {
      message.tool_calls = calls.map((c) => ({
        id: c.id,
        type: 'function',
        function: { name: c.name, arguments: c.args },
      }));
    }
    return {
      id: this.id('chatcmpl-leo'),
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model: modelOf(rec),
      choices: [{ index: 0, message, finish_reason: finishReason(reply), logprobs: null }],
      usage: usage(rec.body, reply),
    };
  }

  private async stream(rec: RecordedRequest, reply: ScriptedReply, res: http.ServerResponse): Promise<void> {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
    const id = this.id('chatcmpl-leo');
    const created = Math.floor(Date.now() / 1000);
    const chunk = (delta: Chunk, finish: string | null = null): Chunk => ({
      id,
      object: 'chat.completion.chunk',
      created,
      model: modelOf(rec),
      choices: [{ index: 0, delta, finish_reason: finish, logprobs: null }],
    });

    const chunks: Chunk[] = [chunk({ role: 'assistant', content: '' })];
    if (reply.reasoning !== undefined) {
      const field = reply.reasoningField ?? 'reasoning_content';
      for (const piece of split(reply.reasoning, reply.reasoningChunks ?? 3)) chunks.push(chunk({ [field]: piece }));
    }
    if (reply.text !== undefined) {
      for (const piece of split(reply.text, reply.chunks ?? 4)) chunks.push(chunk({ content: piece }));
    }
    this.toolCalls(reply).forEach((call, index) => {
      split(call.args, call.fragments).forEach((piece, n) => {
        // As the API sends them: id, type and name only in a call's first fragment, every fragment keyed by index.
        const head = n === 0 ? { id: call.id, type: 'function' } : {};
        const fn = n === 0 ? { name: call.name, arguments: piece } : { arguments: piece };
        chunks.push(chunk({ tool_calls: [{ index, ...head, function: fn }] }));
      });
    });
    chunks.push(chunk({}, finishReason(reply)));
    if (rec.body.stream_options?.include_usage === true) {
      chunks.push({
        id,
        object: 'chat.completion.chunk',
        created,
        model: modelOf(rec),
        choices: [],
        usage: usage(rec.body, reply),
      });
    }

    for (const [n, c] of chunks.entries()) {
      if (n > 0 && reply.chunkDelayMs) await this.sleep(reply.chunkDelayMs);
      if (this.stopped(res)) return;
      if (n === reply.cutAfterChunks) return void res.socket?.destroy();
      res.write(`data: ${JSON.stringify(c)}\n\n`);
    }
    res.end('data: [DONE]\n\n');
  }

  private toolCalls(reply: ScriptedReply): { id: string; name: string; args: string; fragments: number }[] {
    return (reply.toolCalls ?? []).map((c) => ({
      id: c.id ?? this.id('call_leo'),
      name: c.name,
      args: typeof c.arguments === 'string' ? c.arguments : JSON.stringify(c.arguments ?? {}),
      fragments: c.fragments ?? 3,
    }));
  }
}

/** The last user message of a request, as text: what this model call is answering when it is not a tool result. */
export function lastUserText(body: any): string | undefined {
  const messages: any[] = Array.isArray(body?.messages) ? body.messages : [];
  const last = messages.filter((m) => m?.role === 'user').at(-1);
  return last === undefined ? undefined : messageText(last.content);
}

/** Every user message of a request, as text (empty ones left out). */
export function userTexts(body: any): string[] {
  const messages: any[] = Array.isArray(body?.messages) ? body.messages : [];
  return messages
    .filter((m) => m?.role === 'user')
    .map((m) => messageText(m.content)?.trim())
    .filter((text): text is string => !!text);
}

function messageText(content: unknown): string | undefined {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return undefined;
  return content
    .filter((p: any) => p?.type === 'text')
    .map((p: any) => p.text)
    .join('');
}

function modelOf(rec: RecordedRequest): string {
  return typeof rec.body?.model === 'string' ? rec.body.model : 'gpt-test';
}

function finishReason(reply: ScriptedReply): string {
  return reply.finishReason ?? (reply.toolCalls?.length ? 'tool_calls' : 'stop');
}

function usage(body: unknown, reply: ScriptedReply) {
  const reasoning = reply.usage?.reasoning_tokens ?? (reply.reasoning ? estimateTokens(reply.reasoning) : 0);
  const completion =
    reply.usage?.completion_tokens ?? estimateTokens([reply.text ?? '', reply.toolCalls ?? []]) + reasoning;
  const prompt = reply.usage?.prompt_tokens ?? estimateTokens(body);
  return {
    prompt_tokens: prompt,
    completion_tokens: completion,
    total_tokens: prompt + completion,
    prompt_tokens_details: { cached_tokens: reply.usage?.cached_tokens ?? 0 },
    completion_tokens_details: { reasoning_tokens: reasoning },
  };
}

/** OpenAI's error envelope, which its Responses API shares. */
export function apiError(
  res: http.ServerResponse,
  status: number,
  type: string,
  message: string,
  headers: http.OutgoingHttpHeaders = {},
): void {
  json(res, status, { error: { message, type, param: null, code: null } }, headers);
}
