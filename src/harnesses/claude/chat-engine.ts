import { spawn } from 'node:child_process';
import readline from 'node:readline';
import { ClaudeStreamReader } from './chat-stream.js';
import { redactProviderText } from '../../core/provider-error.js';
import type { ChatEngine, EngineMessage, TurnInput, TurnResult, TurnSettings } from '../../core/chat-engine.js';
import type { ToolCallSummary } from '../../wire/sessions.js';

/** Which of Leo's limits stopped the turn. */
type LimitStop = { budget: NonNullable<TurnResult['budgetExceeded']> } | { iterations: number };

/** What the Claude CLI prints when `--resume` names a session it has no transcript of (measured with 2.1.328). */
const RESUME_LOST = /No conversation found with session ID/;

/** How long a turn's process gets after SIGTERM (cancel, limit) before SIGKILL. */
const KILL_GRACE_MS = 3000;

/**
 * The `claude-cli` engine: each turn runs the real Claude Code CLI headless in the agent's workspace
 * (`claude -p --output-format stream-json --verbose --include-partial-messages`), resuming Claude's own session from
 * the previous turn, so Claude holds the history and Leo replays it by resuming (or, with no session of Claude's to
 * resume, by replaying its stored history in the prompt). Its stream is mapped onto the same
 * events, messages, usage and cost as the openai engine. Tools that need a permission are denied in `-p` mode unless
 * the template allows them (`permissions.allow`).
 */
export class ClaudeCliEngine implements ChatEngine {
  readonly name = 'claude-cli' as const;
  readonly takesAttachments = false;
  readonly noTemperature = 'the Claude CLI has no such setting';

  constructor(private readonly opts: { now?(): number } = {}) {}

  async runTurn(input: TurnInput): Promise<TurnResult> {
    const now = this.opts.now ?? Date.now;
    const args = ['-p', '--output-format', 'stream-json', '--verbose', '--include-partial-messages'];
    args.push('--permission-mode', 'default', '--model', input.settings.model);
    if (input.resumeId) args.push('--resume', input.resumeId);
    const allowed = input.allowedTools ?? [];
    if (allowed.length) args.push('--allowedTools', allowed.join(','));
    const env: Record<string, string> = { ...input.env, PWD: input.workspace };
    // Claude's error text quotes the API's answers: it reaches the caller and the session only redacted.
    const providerText = (text: string) =>
      redactProviderText(text, [input.settings.apiKey, ...Object.values(input.env ?? {})]);
    if (input.settings.max_tokens !== undefined) env.CLAUDE_CODE_MAX_OUTPUT_TOKENS = String(input.settings.max_tokens);
    Object.assign(env, reasoningEnv(input.settings));
    args.push(...reasoningArgs(input.settings));
    const prompt = promptOf(input);
    if (prompt !== null) args.push('--', prompt);

    const child = spawn('claude', args, {
      cwd: input.workspace,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => (stderr = (stderr + c.toString()).slice(-2000)));
    const spawned = new Promise<Error | null>((resolve) => {
      child.once('spawn', () => resolve(null));
      child.once('error', (err) => resolve(err));
    });
    const exited = new Promise<number | null>((resolve) => child.once('close', (code) => resolve(code)));
    const kill = () => {
      if (child.pid === undefined || child.exitCode !== null) return;
      try {
        process.kill(-child.pid, 'SIGTERM');
      } catch {
        return;
      }
      setTimeout(() => {
        try {
          process.kill(-child.pid!, 'SIGKILL');
        } catch {
          // Already gone.
        }
      }, KILL_GRACE_MS).unref();
    };
    const startErr = await spawned;
    if (startErr) return failed(`claude could not start: ${startErr.message}`);
    const onAbort = () => kill();
    input.signal.addEventListener('abort', onAbort, { once: true });
    let timedOut = false;
    const deadline = setTimeout(() => {
      timedOut = true;
      kill();
    }, input.settings.maxDurationMs);
    // Leo's own limits, enforced here as the openai loop does: Claude runs its loop itself, so Leo stops the process.
    const { budget, maxIterations } = input.settings;
    let stopped: LimitStop | null = null;
    const stopWith = (why: LimitStop) => {
      stopped ??= why;
      kill();
    };
    const started = now();
    const wall =
      budget?.max_wall_seconds !== undefined
        ? setTimeout(
            () =>
              stopWith({
                budget: { kind: 'max_wall_seconds', limit: budget.max_wall_seconds!, used: (now() - started) / 1000 },
              }),
            budget.max_wall_seconds * 1000,
          )
        : null;
    let tokensUsed = 0;

    const reader = new ClaudeStreamReader();
    const pendingTools = new Map<string, { name: string; at: number }>();
    const toolCalls: ToolCallSummary[] = [];
    let result: TurnResult | null = null;
    let resumeId: string | null = input.resumeId ?? null;
    let iterations = 0;
    let lastText: string | null = null;
    const lines = readline.createInterface({ input: child.stdout });
    for await (const line of lines) {
      for (const item of reader.read(line)) {
        switch (item.kind) {
          case 'init':
            resumeId = item.sessionId;
            break;
          case 'chunk':
            input.events.chunk(item.content);
            break;
          case 'thinking':
            input.events.thinking(item.content);
            break;
          case 'tool':
            input.events.tool(item.name);
            break;
          case 'message':
            iterations = item.message.iteration ?? iterations;
            lastText = item.message.content;
            for (const c of item.message.tool_calls ?? []) pendingTools.set(c.id, { name: c.function.name, at: now() });
            input.events.message(item.message);
            tokensUsed += (item.message.tokenUsage?.input ?? 0) + (item.message.tokenUsage?.output ?? 0);
            // Checked only when the loop would go on (tool calls follow), like the openai engine.
            if (item.message.tool_calls?.length) {
              if (budget?.max_tokens !== undefined && tokensUsed > budget.max_tokens)
                stopWith({ budget: { kind: 'max_tokens', limit: budget.max_tokens, used: tokensUsed } });
              else if (iterations >= maxIterations) stopWith({ iterations });
            }
            break;
          case 'toolResult': {
            const t = pendingTools.get(item.message.tool_call_id ?? '');
            if (t) toolCalls.push({ name: t.name, durationMs: now() - t.at, success: !item.isError });
            input.events.message(item.message);
            break;
          }
          case 'result':
            result = {
              content: item.text ?? lastText,
              iterations,
              usage: item.usage,
              toolCalls,
              resumeId: item.sessionId ?? resumeId,
              ...(item.ok
                ? {}
                : { failure: { code: 'LLM_ERROR', message: providerText(item.text ?? 'claude reported an error') } }),
            };
            break;
        }
      }
    }
    const code = await exited;
    clearTimeout(deadline);
    if (wall) clearTimeout(wall);
    input.signal.removeEventListener('abort', onAbort);
    // Set by callbacks while the stream ran, which TypeScript's narrowing cannot see.
    const limit = stopped as LimitStop | null;
    // Claude no longer has the session Leo resumes (its transcript is gone): the turn replays Leo's history instead.
    // Claude says so before it calls the model, so nothing of this attempt was streamed or stored.
    if (input.resumeId && !limit && !input.signal.aborted && RESUME_LOST.test(stderr))
      return this.runTurn({ ...input, resumeId: null });
    if (limit && 'budget' in limit)
      return {
        ...(result ?? empty(iterations, toolCalls)),
        resumeId,
        content: null,
        cancelled: { reason: 'budget_exceeded' },
        budgetExceeded: limit.budget,
      };
    if (limit)
      return {
        ...(result ?? empty(iterations, toolCalls)),
        resumeId,
        content: null,
        failure: {
          code: 'MAX_ITERATIONS',
          message: `The turn reached its iteration limit (${maxIterations}) before a final reply`,
        },
      };
    if (input.signal.aborted)
      return {
        ...(result ?? empty(iterations, toolCalls)),
        resumeId,
        content: null,
        cancelled: { reason: reasonOf(input.signal) },
      };
    if (result) return result;
    const why = providerText(stderr.trim().split('\n').at(-1) ?? '');
    if (timedOut)
      return {
        ...empty(iterations, toolCalls),
        resumeId,
        failure: { code: 'MAX_DURATION', message: 'the turn ran out of time' },
      };
    return {
      ...empty(iterations, toolCalls),
      resumeId,
      failure: { code: 'LLM_ERROR', message: `claude exited ${code}${why ? `: ${why}` : ''}` },
    };
  }
}

/**
 * `reasoning` as the pinned Claude CLI takes it: the effort as `--effort` (its levels are low, medium, high, xhigh,
 * max; `none` and `auto` leave Claude's default) and a `max_tokens` budget as MAX_THINKING_TOKENS, which turns
 * extended thinking on with that budget. `none` sets the budget to 0: no thinking.
 */
function reasoningArgs(settings: TurnSettings): string[] {
  const effort = settings.reasoning?.effort;
  return effort && effort !== 'none' && effort !== 'auto' ? ['--effort', effort] : [];
}

function reasoningEnv(settings: TurnSettings): Record<string, string> {
  const r = settings.reasoning;
  if (!r) return {};
  if (r.effort === 'none') return { MAX_THINKING_TOKENS: '0' };
  return r.max_tokens !== undefined ? { MAX_THINKING_TOKENS: String(r.max_tokens) } : {};
}

/**
 * What Claude is sent. Resuming Claude's own session: the new user message, or nothing at all for `continue: true`
 * (Claude then carries on with what it left pending, or answers that it needs a prompt) — never words of Leo's own.
 * With no session of Claude's to resume but messages stored before this one (a turn stopped before Claude named its
 * session, or the agent moved to this engine), Leo's stored history is replayed ahead of the new message, so Claude
 * does not start the conversation with no memory of it.
 */
function promptOf({ history, resumeId, continued }: TurnInput): string | null {
  const last = history.at(-1);
  // A continued turn whose history ends with the user's message (its turn failed) does not send it again: Claude's
  // own session may already hold it.
  const current = !continued && last?.role === 'user' ? textOf(last) : null;
  const earlier = current === null ? history : history.slice(0, -1);
  if (resumeId || earlier.length === 0) return current;
  const replay = `<conversation_history>\n${earlier.map(replayed).join('\n')}\n</conversation_history>`;
  return current === null ? replay : `${replay}\n\n${current}`;
}

function replayed(m: EngineMessage): string {
  if (m.role === 'tool') return `<tool_result>\n${textOf(m)}\n</tool_result>`;
  const calls = (m.tool_calls ?? []).map(
    (c) => `<tool_call name="${c.function.name}">${c.function.arguments}</tool_call>`,
  );
  return [`<${m.role}>`, ...(m.content ? [textOf(m)] : []), ...calls, `</${m.role}>`].join('\n');
}

function textOf(m: EngineMessage): string {
  if (typeof m.content === 'string') return m.content;
  return (m.content ?? []).map((p) => (p.type === 'text' ? p.text : '')).join('');
}

function empty(iterations: number, toolCalls: ToolCallSummary[]): TurnResult {
  return { content: null, iterations, usage: { input: 0, output: 0, cache: 0, cost: 0 }, toolCalls };
}

function failed(message: string): TurnResult {
  return { ...empty(0, []), failure: { code: 'LLM_ERROR', message } };
}

function reasonOf(signal: AbortSignal): string {
  return typeof signal.reason === 'string' ? signal.reason : 'user_cancel';
}
