import { spawn } from 'node:child_process';
import readline from 'node:readline';
import { ClaudeStreamReader } from './claude-stream.js';
import { redactProviderText } from './provider-error.js';
import type { ChatEngine, EngineMessage, TurnInput, TurnResult } from './engine.js';
import type { ToolCallSummary } from './session-schemas.js';

/** How long a turn's process gets after SIGTERM (cancel, limit) before SIGKILL. */
const KILL_GRACE_MS = 3000;

/**
 * The `claude-cli` engine: each turn runs the real Claude Code CLI headless in the agent's workspace
 * (`claude -p --output-format stream-json --verbose --include-partial-messages`), resuming Claude's own session from
 * the previous turn, so Claude holds the history and Leo replays it by resuming. Its stream is mapped onto the same
 * events, messages, usage and cost as the openai engine. Tools that need a permission are denied in `-p` mode unless
 * the template allows them (`permissions.allow`).
 */
export class ClaudeCliEngine implements ChatEngine {
  readonly name = 'claude-cli' as const;

  constructor(private readonly opts: { now?(): number } = {}) {}

  async runTurn(input: TurnInput): Promise<TurnResult> {
    const now = this.opts.now ?? Date.now;
    const prompt = lastUserText(input.history);
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
    args.push('--', prompt);

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
    input.signal.removeEventListener('abort', onAbort);
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

/** The new user message; a history ending in anything else is a `continue: true` turn. */
function lastUserText(history: EngineMessage[]): string {
  const last = history.at(-1);
  if (last?.role !== 'user') return 'Continue.';
  if (typeof last.content === 'string') return last.content;
  return (last.content ?? []).map((p) => (p.type === 'text' ? p.text : '')).join('');
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
