// The openai engine: the agent loop against any OpenAI-compatible /chat/completions endpoint. Each iteration streams
// one model call, stores the assistant message, runs the tool calls it asked for and stores their results; the turn
// ends when a reply asks for no tools, or a limit, a budget, a cancel or a failing provider stops it first.
import { randomUUID } from 'node:crypto';
import { systemClock, type Clock, type TimerHandle } from '../core/clock.js';
import { resolvePaths } from '../core/home.js';
import type {
  ChatEngine,
  EngineMessage,
  TurnFailure,
  TurnInput,
  TurnResult,
  TurnSettings,
} from '../core/chat-engine.js';
import { redactProviderText } from '../core/provider-error.js';
import { SseParser } from '../wire/sse-parser.js';
import type { FinishReason, NewSessionMessage, TokenUsage, ToolCall, ToolCallSummary } from '../wire/sessions.js';
import { builtinTools, runTool, toolSchemas, type OpenAiToolSchema, type Tool } from './tools/index.js';

/** Attempts per model call; this many failures in a row fail the turn with LLM_ERROR. */
const MAX_ATTEMPTS = 4;
/** setTimeout's ceiling; a longer delay would fire at once. */
const MAX_TIMER_MS = 2 ** 31 - 1;

export interface OpenAiEngineOptions {
  /** Durations, deadlines and retry waits; default the system clock. */
  clock?: Clock;
  /** The wait before the next attempt after `failures` failed ones in a row; default defaultRetryDelayMs. */
  retryDelayMs?: (failures: number, retryAfterMs: number | null) => number;
  /** Default: the built-in tools. */
  tools?: readonly Tool[];
  /** Roots no tool may read under; default $LEO_HOME/state. */
  deniedRoots?: readonly string[];
}

/** The provider's Retry-After when it sent one, else 0.5 s, 1 s, 2 s, … */
export function defaultRetryDelayMs(failures: number, retryAfterMs: number | null): number {
  return retryAfterMs ?? 500 * 2 ** (failures - 1);
}

export class OpenAiEngine implements ChatEngine {
  readonly name = 'openai';
  readonly takesAttachments = true;
  private readonly deps: TurnDeps;

  constructor(opts: OpenAiEngineOptions = {}) {
    const tools = opts.tools ?? builtinTools;
    this.deps = {
      clock: opts.clock ?? systemClock,
      retryDelayMs: opts.retryDelayMs ?? defaultRetryDelayMs,
      tools,
      schemas: toolSchemas(tools),
      deniedRoots: opts.deniedRoots ?? [resolvePaths().stateDir],
    };
  }

  runTurn(input: TurnInput): Promise<TurnResult> {
    return new Turn(input, this.deps).run();
  }
}

/** What every turn shares: the engine's options with their defaults filled in. */
interface TurnDeps extends Required<OpenAiEngineOptions> {
  schemas: OpenAiToolSchema[];
}

/** Why the loop stopped early; the first reason wins. */
type Stop =
  | { kind: 'cancelled'; reason: string }
  | { kind: 'budget'; exceeded: NonNullable<TurnResult['budgetExceeded']> }
  | { kind: 'failure'; failure: TurnFailure };

/** A message as the chat completions API takes it. */
interface WireMessage {
  role: EngineMessage['role'];
  content: EngineMessage['content'];
  tool_calls?: ToolCall[];
  tool_call_id?: string;
}

/** The `usage` object of the final chunk. `prompt_tokens` includes the cached ones. */
interface WireUsage {
  prompt_tokens?: number;
  completion_tokens?: number;
  prompt_tokens_details?: { cached_tokens?: number };
  completion_tokens_details?: { reasoning_tokens?: number };
}

/** One model call's reply, assembled from the stream. */
interface Reply {
  content: string;
  thinking: string;
  toolCalls: ToolCall[];
  finishReason: string | null;
  usage: WireUsage | null;
}

class LlmError extends Error {
  constructor(
    message: string,
    readonly retryable: boolean,
    readonly retryAfterMs: number | null = null,
  ) {
    super(message);
  }
}

class Turn {
  /** Aborted on any stop: ends the model call, tool or retry wait in flight. */
  private readonly ctl = new AbortController();
  private stop: Stop | null = null;
  private readonly started: number;
  private readonly timers: TimerHandle[] = [];
  private readonly usage: TokenUsage = { input: 0, output: 0, cache: 0, cost: 0 };
  private readonly toolCalls: ToolCallSummary[] = [];
  private iterations = 0;
  private content: string | null = null;

  constructor(
    private readonly input: TurnInput,
    private readonly deps: TurnDeps,
  ) {
    this.started = deps.clock.now();
  }

  async run(): Promise<TurnResult> {
    const { signal, settings } = this.input;
    const onAbort = () =>
      this.halt({ kind: 'cancelled', reason: typeof signal.reason === 'string' ? signal.reason : 'user_cancel' });
    signal.addEventListener('abort', onAbort, { once: true });
    if (signal.aborted) onAbort();
    const wall = settings.budget?.max_wall_seconds;
    if (wall !== undefined) {
      this.after(wall * 1000, () =>
        this.halt({
          kind: 'budget',
          exceeded: { kind: 'max_wall_seconds', limit: wall, used: (this.deps.clock.now() - this.started) / 1000 },
        }),
      );
    }
    this.after(settings.maxDurationMs, () =>
      this.halt({
        kind: 'failure',
        failure: { code: 'MAX_DURATION', message: `The turn ran out of time (${settings.maxDurationMs} ms)` },
      }),
    );
    try {
      await this.loop();
    } finally {
      signal.removeEventListener('abort', onAbort);
      for (const t of this.timers) t.cancel();
    }
    return this.result();
  }

  private async loop(): Promise<void> {
    const { settings, events } = this.input;
    const messages = this.input.history.map(toWire);
    for (;;) {
      if (this.stop) return;
      if (this.iterations >= settings.maxIterations) {
        const message = `The turn reached its iteration limit (${settings.maxIterations}) before a final reply`;
        return this.halt({ kind: 'failure', failure: { code: 'MAX_ITERATIONS', message } });
      }
      const reply = await this.callWithRetries(messages);
      if (!reply) return;
      this.iterations++;
      const usage = usageOf(reply.usage, settings.price);
      addUsage(this.usage, usage);
      const text = reply.content || null;
      // Only a reply that asks for no tools is the turn's final one: a turn stopped after a tool-calling iteration
      // has no reply, even when that iteration said something before its calls.
      this.content = reply.toolCalls.length ? null : text;
      const reasoningTokens = Number(reply.usage?.completion_tokens_details?.reasoning_tokens) || null;
      events.message({
        role: 'assistant',
        content: text,
        tool_calls: reply.toolCalls.length ? reply.toolCalls : null,
        tool_call_id: null,
        thinking_content: reply.thinking || null,
        thinking_tokens: reasoningTokens,
        finishReason: finishReasonOf(reply),
        iteration: this.iterations,
        tokenUsage: usage,
      });
      messages.push({
        role: 'assistant',
        content: text,
        ...(reply.toolCalls.length ? { tool_calls: reply.toolCalls } : {}),
      });
      if (!reply.toolCalls.length) return;
      this.checkTokenBudget();
      // Every call gets its tool message even after a stop, so the stored history stays one the API accepts.
      for (const call of reply.toolCalls) {
        const content = this.stop ? `Not run: ${describeStop(this.stop)}` : await this.runToolCall(call);
        const tool: NewSessionMessage = { role: 'tool', content, tool_calls: null, tool_call_id: call.id };
        events.message(tool);
        messages.push({ role: 'tool', content, tool_call_id: call.id });
      }
    }
  }

  /** The reply, or null when the turn stopped meanwhile (then this.stop says why). */
  private async callWithRetries(messages: WireMessage[]): Promise<Reply | null> {
    for (let failures = 1; ; failures++) {
      try {
        return await this.callModel(messages);
      } catch (err) {
        // Anything else is a bug here or in the events sink, not the provider's doing.
        if (!(err instanceof LlmError)) throw err;
        if (this.stop) return null;
        if (!err.retryable || failures >= MAX_ATTEMPTS) {
          const message = err.retryable ? `${err.message} (gave up after ${failures} attempts)` : err.message;
          this.halt({ kind: 'failure', failure: { code: 'LLM_ERROR', message } });
          return null;
        }
        await this.wait(this.deps.retryDelayMs(failures, err.retryAfterMs));
        if (this.stop) return null;
      }
    }
  }

  private async callModel(messages: WireMessage[]): Promise<Reply> {
    const { settings } = this.input;
    if (!settings.baseUrl) throw new LlmError('The openai engine has no baseUrl configured', false);
    const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'text/event-stream' };
    if (settings.apiKey) headers.authorization = `Bearer ${settings.apiKey}`;
    let res: Response;
    try {
      res = await fetch(`${settings.baseUrl.replace(/\/+$/, '')}/chat/completions`, {
        method: 'POST',
        headers,
        body: JSON.stringify(this.requestBody(messages, settings)),
        signal: this.ctl.signal,
      });
    } catch (err) {
      throw new LlmError(`LLM API unreachable: ${describeError(err)}`, true);
    }
    if (!res.ok) throw await httpError(res, settings.apiKey);
    if (!res.body) throw new LlmError('LLM API answered with an empty body', true);
    return this.readStream(res.body);
  }

  private requestBody(messages: WireMessage[], settings: TurnSettings): Record<string, unknown> {
    const reasoning = reasoningParam(settings.reasoning);
    return {
      model: settings.model,
      messages,
      stream: true,
      stream_options: { include_usage: true },
      ...(this.deps.schemas.length ? { tools: this.deps.schemas } : {}),
      ...(settings.temperature !== undefined ? { temperature: settings.temperature } : {}),
      ...(settings.max_tokens !== undefined ? { max_tokens: settings.max_tokens } : {}),
      ...(reasoning ? { reasoning } : {}),
    };
  }

  /** Streams the deltas out as events while assembling the reply. */
  private async readStream(body: AsyncIterable<Uint8Array>): Promise<Reply> {
    const { events } = this.input;
    const reply: Reply = { content: '', thinking: '', toolCalls: [], finishReason: null, usage: null };
    const calls: { id: string; name: string; args: string }[] = [];
    let done = false;
    for await (const data of sseData(body)) {
      if (data === '[DONE]') {
        done = true;
        break;
      }
      let chunk: any;
      try {
        chunk = JSON.parse(data);
      } catch {
        throw new LlmError(
          `LLM stream sent malformed data: ${redactProviderText(data, [this.input.settings.apiKey])}`,
          true,
        );
      }
      // Some providers report a failure inside a stream that has already answered 200.
      if (chunk?.error)
        throw new LlmError(
          `LLM API error: ${redactProviderText(chunk.error.message ?? JSON.stringify(chunk.error), [this.input.settings.apiKey])}`,
          true,
        );
      if (chunk?.usage) reply.usage = chunk.usage;
      const choice = chunk?.choices?.[0];
      if (!choice) continue;
      const delta = choice.delta ?? {};
      if (typeof delta.content === 'string' && delta.content) {
        reply.content += delta.content;
        events.chunk(delta.content);
      }
      const reasoning = delta.reasoning_content ?? delta.reasoning;
      if (typeof reasoning === 'string' && reasoning) {
        reply.thinking += reasoning;
        events.thinking(reasoning);
      }
      for (const fragment of Array.isArray(delta.tool_calls) ? delta.tool_calls : []) {
        // Fragments are keyed by index; a provider that leaves it out starts each new call with an id.
        const index =
          typeof fragment.index === 'number' ? fragment.index : Math.max(0, calls.length - (fragment.id ? 0 : 1));
        const call = (calls[index] ??= { id: '', name: '', args: '' });
        if (fragment.id) call.id = fragment.id;
        if (fragment.function?.name && !call.name) {
          call.name = fragment.function.name;
          events.tool(call.name);
        }
        if (typeof fragment.function?.arguments === 'string') call.args += fragment.function.arguments;
      }
      if (choice.finish_reason) reply.finishReason = choice.finish_reason;
    }
    // Without [DONE] or a finish reason the connection dropped mid-reply: what arrived is not the whole answer.
    if (!done && !reply.finishReason) throw new LlmError('LLM stream ended before the reply was complete', true);
    reply.toolCalls = calls
      .filter((c) => c !== undefined)
      .map((c) => ({
        // Ids pair each tool message with its call across the stored history, so a made-up one must be unique too.
        id: c.id || `call_${randomUUID().replaceAll('-', '')}`,
        type: 'function' as const,
        function: { name: c.name, arguments: c.args },
      }));
    return reply;
  }

  private async runToolCall(call: ToolCall): Promise<string> {
    const name = call.function.name;
    const started = this.deps.clock.now();
    const outcome = await runTool(this.deps.tools, name, call.function.arguments, {
      workspace: this.input.workspace,
      env: this.input.env ?? {},
      deniedRoots: this.deps.deniedRoots,
      signal: this.ctl.signal,
      output: (content) => this.input.events.toolChunk({ tool_call_id: call.id, name, content }),
    });
    this.toolCalls.push({ name, durationMs: Math.round(this.deps.clock.now() - started), success: outcome.success });
    return outcome.content;
  }

  /** Checked only when the loop would go on: a breach on the final reply stops nothing. */
  private checkTokenBudget(): void {
    const limit = this.input.settings.budget?.max_tokens;
    const used = this.usage.input + this.usage.output;
    if (limit !== undefined && used > limit) {
      this.halt({ kind: 'budget', exceeded: { kind: 'max_tokens', limit, used } });
    }
  }

  private halt(stop: Stop): void {
    if (this.stop) return;
    this.stop = stop;
    this.ctl.abort();
  }

  private after(ms: number, fn: () => void): void {
    this.timers.push(this.deps.clock.setTimeout(fn, Math.min(Math.max(0, ms), MAX_TIMER_MS)));
  }

  /** Ends early when the turn stops. */
  private wait(ms: number): Promise<void> {
    if (ms <= 0 || this.stop) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        timer.cancel();
        this.ctl.signal.removeEventListener('abort', done);
        resolve();
      };
      const timer = this.deps.clock.setTimeout(done, Math.min(ms, MAX_TIMER_MS));
      this.ctl.signal.addEventListener('abort', done, { once: true });
    });
  }

  private result(): TurnResult {
    const result: TurnResult = {
      content: this.content,
      iterations: this.iterations,
      usage: this.usage,
      toolCalls: this.toolCalls,
    };
    if (this.stop?.kind === 'cancelled') result.cancelled = { reason: this.stop.reason };
    if (this.stop?.kind === 'budget') {
      result.cancelled = { reason: 'budget_exceeded' };
      result.budgetExceeded = this.stop.exceeded;
    }
    if (this.stop?.kind === 'failure') result.failure = this.stop.failure;
    return result;
  }
}

/**
 * The data payloads of an SSE body, one per event; comments (keep-alives) and other fields are skipped. A read that
 * fails (the connection dropped) is a retryable LlmError; what the consumer throws never passes through here.
 */
async function* sseData(body: AsyncIterable<Uint8Array>): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  const parser = new SseParser();
  try {
    for await (const bytes of body) for (const e of parser.feed(decoder.decode(bytes, { stream: true }))) yield e.data;
  } catch (err) {
    throw new LlmError(`LLM stream broke off: ${describeError(err)}`, true);
  }
  for (const e of parser.end()) yield e.data;
}

function toWire(m: EngineMessage): WireMessage {
  // Providers reject `tool_calls: null` or an empty list on assistant messages, and tool_call_id off tool messages.
  const wire: WireMessage = { role: m.role, content: m.content };
  if (m.tool_calls?.length) wire.tool_calls = m.tool_calls;
  if (m.role === 'tool' && m.tool_call_id) wire.tool_call_id = m.tool_call_id;
  return wire;
}

/**
 * OpenRouter's normalised `reasoning` field, which OpenAI-compatible providers without reasoning ignore. A budget
 * wins over an effort (the API takes one or the other); `auto` leaves the provider's default alone, while `none` is
 * sent so that models which reason by default stop doing so.
 */
function reasoningParam(r: TurnSettings['reasoning']): Record<string, unknown> | null {
  if (!r) return null;
  if (r.max_tokens !== undefined) return { max_tokens: r.max_tokens };
  if (r.effort === 'auto') return null;
  return { effort: r.effort === 'max' ? 'xhigh' : r.effort };
}

function finishReasonOf(reply: Reply): FinishReason {
  if (reply.toolCalls.length) return 'tool_calls';
  return reply.finishReason === 'length' ? 'length' : 'stop';
}

/** The cached part of the prompt is priced apart, at the cache price when there is one. */
function usageOf(wire: WireUsage | null, price: TurnSettings['price']): TokenUsage {
  const input = Number(wire?.prompt_tokens) || 0;
  const output = Number(wire?.completion_tokens) || 0;
  const cache = Number(wire?.prompt_tokens_details?.cached_tokens) || 0;
  const cost = price
    ? ((input - cache) * price.input + cache * (price.cache ?? price.input) + output * price.output) / 1_000_000
    : 0;
  return { input, output, cache, cost };
}

function addUsage(total: TokenUsage, u: TokenUsage): void {
  total.input += u.input;
  total.output += u.output;
  total.cache += u.cache;
  total.cost += u.cost;
}

function describeStop(stop: Stop): string {
  if (stop.kind === 'cancelled') return `the turn was cancelled (${stop.reason})`;
  if (stop.kind === 'budget') return `the turn was cancelled (budget_exceeded: ${stop.exceeded.kind})`;
  return `the turn stopped (${stop.failure.code})`;
}

/** fetch hides the real cause (ECONNREFUSED, socket closed) behind a generic "fetch failed" or "terminated". */
function describeError(err: unknown): string {
  const e = err as Error & { cause?: Error };
  return e.cause?.message ? `${e.message} (${e.cause.message})` : String(e?.message ?? err);
}

/** The provider's status and its own words, never a credential they echo (provider-error.ts). */
async function httpError(res: Response, apiKey: string | undefined): Promise<LlmError> {
  const text = await res.text().catch(() => '');
  let detail = text;
  try {
    const parsed = JSON.parse(text);
    if (typeof parsed?.error?.message === 'string') detail = parsed.error.message;
  } catch {
    // Not JSON: the raw text is the best there is.
  }
  detail = redactProviderText(detail, [apiKey]);
  const retryable = res.status === 408 || res.status === 429 || res.status >= 500;
  return new LlmError(
    `LLM API error ${res.status}: ${detail}`,
    retryable,
    retryAfterMs(res.headers.get('retry-after')),
  );
}

/** Retry-After in either of its forms: delta seconds or an HTTP date. */
function retryAfterMs(header: string | null): number | null {
  if (!header) return null;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return Math.max(0, seconds * 1000);
  const at = Date.parse(header);
  // The date is real time, whatever clock the turn runs on.
  return Number.isNaN(at) ? null : Math.max(0, at - Date.now());
}
