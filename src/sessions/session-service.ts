import type { Clock, TimerHandle } from '../core/clock.js';
import { LeoError } from '../core/leo-error.js';
import { KeyedQueue } from '../core/keyed-queue.js';
import type { ChatEngine, ContentPart, EngineMessage, TurnResult, TurnSettings } from '../core/chat-engine.js';
import type { LlmSettings, Session, SessionMessage, TokenUsage, TurnDone, TurnError } from '../wire/sessions.js';
import { resolveSettings } from './overrides.js';
import type { SessionStore } from './session-store.js';
import type { SessionStreams, StreamEventName } from './session-streams.js';

/** A Leo agent as the chat endpoint sees it: whether chat is on, which engine, and the turn defaults. */
export interface ChatAgent {
  name: string;
  chatEnabled: boolean;
  engine: ChatEngine['name'];
  workspace: string;
  /** Its environments and template env: an engine that runs a CLI runs it with these. */
  env: Record<string, string>;
  /** The template's permission allow rules (claude-cli passes them as --allowedTools). */
  allowedTools: string[];
  /** The agent's defaults (template), the lowest layer under session and per-call overrides. */
  defaults: TurnSettings;
}

export interface TurnRequest {
  agent: string;
  /** The user message as stored (mentions expanded); null for `continue: true`. */
  message: string | null;
  sessionId?: string | undefined;
  /** With attachments: this turn's whole user content (text part first), sent but never stored. */
  parts: ContentPart[];
  /** The first attachment's type (null: it has none), skipped ones included: set whenever attachments were given. */
  firstAttachmentType?: string | null | undefined;
  overrides: LlmSettings;
}

export type TurnOutcome =
  | { ok: true; done: TurnDone; content: string | null }
  | { ok: false; status: number; code: string; error: string; details?: Record<string, unknown> };

export interface Turn {
  /** `turn_<n>`: the key its own events are published under. */
  id: string;
  session: Session;
  outcome: Promise<TurnOutcome>;
  cancel(reason: string): void;
}

const ZERO: TokenUsage = { input: 0, output: 0, cache: 0, cost: 0 };
/** How often sessions past their retention are looked for. */
export const RETENTION_SWEEP_MS = 6 * 3600_000;

/**
 * Runs chat turns: finds or creates the session, stores the user message, replays the full history to the agent's
 * engine, stores and streams what the engine produces, and ends with `done` or `error`. Turns of one session run one
 * after another; a cancel (route, disconnect, budget, shutdown) reaches the engine through its AbortSignal.
 */
export class SessionService {
  private readonly turnQueue = new KeyedQueue();
  private readonly running = new Map<string, AbortController>();
  private retentionTimer: TimerHandle | null = null;
  private turns = 0;

  constructor(
    private readonly deps: {
      store: SessionStore;
      streams: SessionStreams;
      engines: Record<ChatEngine['name'], ChatEngine>;
      agent(name: string): ChatAgent | null;
      clock: Clock;
      /** chat.session_retention: a session untouched this long is deleted with its messages. */
      retentionMs(): number;
    },
  ) {}

  /** Deletes expired sessions now and every RETENTION_SWEEP_MS until close(). */
  startRetention(): void {
    this.pruneExpired();
    this.retentionTimer = this.deps.clock.setInterval(() => this.pruneExpired(), RETENTION_SWEEP_MS);
  }

  /** Deletes the sessions past retention; a busy one waits for the next sweep (its turn will touch it anyway). */
  pruneExpired(): number {
    const ids = this.deps.store
      .idleSince(this.deps.clock.now() - this.deps.retentionMs())
      .filter((id) => !this.busy(id));
    for (const id of ids) this.deps.store.delete(id);
    return ids.length;
  }

  /** The agent, or the spec's error for a missing one or one without chat. */
  chatAgent(name: string): ChatAgent {
    const agent = this.deps.agent(name);
    if (!agent) throw new LeoError(404, `no agent named "${name}"`, 'AGENT_NOT_FOUND');
    if (!agent.chatEnabled)
      throw new LeoError(400, `agent ${name} does not have chat.enabled: true`, 'MODE_NOT_SUPPORTED');
    return agent;
  }

  /** A session by id, 404 SESSION_NOT_FOUND otherwise. */
  session(id: string): Session {
    const s = this.deps.store.get(id);
    if (!s) throw new LeoError(404, `no session ${id}`, 'SESSION_NOT_FOUND');
    return s;
  }

  /** Validates against the agent and the session, then starts the turn (queued behind the session's last one). */
  begin(req: TurnRequest): Turn {
    const agent = this.chatAgent(req.agent);
    const engine = this.deps.engines[agent.engine];
    // Judged on every attachment given: one the parser skipped (audio by url) was still meant for the model.
    if (req.firstAttachmentType !== undefined && !engine.takesAttachments)
      throw new LeoError(
        400,
        `the ${engine.name} engine does not take attachments; use an agent on the openai engine`,
        'MODEL_MODALITY_UNSUPPORTED',
        { attachmentType: req.firstAttachmentType },
      );
    let session: Session;
    if (req.sessionId) {
      session = this.session(req.sessionId);
      if (session.agent_name !== agent.name)
        throw new LeoError(404, `session ${req.sessionId} belongs to another agent`, 'SESSION_NOT_FOUND');
      if (session.status === 'closed') throw new LeoError(400, `session ${session.id} is closed`, 'SESSION_CLOSED');
      refuseTemperature(engine, req.overrides, this.deps.store.overrides(session.id), agent.defaults);
    } else {
      refuseTemperature(engine, req.overrides, {}, agent.defaults);
      // The per-call model is this call's only: the session starts on the agent's.
      session = this.deps.store.create(agent.name, agent.defaults.model);
    }
    const abort = new AbortController();
    const turnId = `turn_${++this.turns}`;
    // The turn starts after begin() returns, never inside it: the caller subscribes to the turn's stream first.
    const outcome = this.turnQueue.run(session.id, () =>
      Promise.resolve().then(() => this.run(agent, session.id, turnId, req, abort)),
    );
    return { id: turnId, session, outcome, cancel: (reason) => abort.abort(reason) };
  }

  messages(sessionId: string): SessionMessage[] {
    return this.deps.store.messages(sessionId);
  }

  /** The agent's sessions, newest activity first; 404 for an agent that neither exists nor left sessions behind. */
  list(agent: string, limit: number): Session[] {
    const sessions = this.deps.store.list(agent, limit);
    if (sessions.length === 0 && !this.deps.agent(agent))
      throw new LeoError(404, `no agent named "${agent}"`, 'AGENT_NOT_FOUND');
    return sessions;
  }

  /** Whether a turn runs on the session or waits behind one. */
  busy(sessionId: string): boolean {
    return this.turnQueue.busy(sessionId);
  }

  /** Deletes a session and its messages; refused while a turn runs or waits, which would write to it. */
  remove(sessionId: string): void {
    this.session(sessionId);
    if (this.busy(sessionId))
      throw new LeoError(
        409,
        `session ${sessionId} has a turn running or queued: cancel it first (POST /sessions/${sessionId}/cancel)`,
        'SESSION_BUSY',
      );
    this.deps.store.delete(sessionId);
  }

  /** Cancels the session's running turn; false when none runs. */
  cancel(sessionId: string, reason = 'user_cancel'): boolean {
    const a = this.running.get(sessionId);
    if (!a) return false;
    a.abort(reason);
    return true;
  }

  /** Sticky overrides (PATCH) and close. */
  patch(sessionId: string, p: { overrides?: LlmSettings; status?: 'active' | 'closed' }): Session {
    const session = this.session(sessionId);
    const agent = this.deps.agent(session.agent_name);
    if (agent && p.overrides) refuseTemperature(this.deps.engines[agent.engine], {}, p.overrides, {});
    const merged = p.overrides ? { ...this.deps.store.overrides(sessionId), ...p.overrides } : undefined;
    return this.deps.store.update(sessionId, {
      ...(merged ? { overrides: merged } : {}),
      ...(merged?.model !== undefined ? { model: merged.model } : {}),
      ...(p.status ? { status: p.status } : {}),
    });
  }

  /** `GET /sessions/:id/config`: the agent's defaults under the session's sticky overrides, no per-call layer. */
  config(sessionId: string): { session: LlmSettings; agent: LlmSettings; effective: LlmSettings } {
    const s = this.session(sessionId);
    const agent = this.deps.agent(s.agent_name);
    const defaults = resolveSettings(null, null, agent?.defaults ?? { model: s.model });
    const session = this.deps.store.overrides(sessionId);
    return { session, agent: defaults, effective: resolveSettings(null, session, defaults) };
  }

  /** Shutdown: cancels every running turn and waits for them to record how they ended. */
  async close(): Promise<void> {
    this.retentionTimer?.cancel();
    this.retentionTimer = null;
    for (const a of this.running.values()) a.abort('shutdown');
    await this.turnQueue.onIdle();
  }

  private async run(
    agent: ChatAgent,
    sessionId: string,
    turnId: string,
    req: TurnRequest,
    abort: AbortController,
  ): Promise<TurnOutcome> {
    const { store, streams, clock } = this.deps;
    const emit = (event: StreamEventName | 'session.budget_exceeded', data: unknown) =>
      streams.publish({ sessionId, turnId, event, data });
    // Every turn that ends without a reply says so on the stream and on the session, for a poller with no stream.
    const fail = (error: TurnError) => {
      emit('error', error);
      store.update(sessionId, { lastError: { ...error, at: new Date(clock.now()).toISOString() } });
    };
    const startedAt = clock.now();
    this.running.set(sessionId, abort);
    try {
      if (store.get(sessionId)?.last_error) store.update(sessionId, { lastError: null });
      if (abort.signal.aborted) return this.cancelled(sessionId, String(abort.signal.reason), fail);
      if (req.message !== null)
        store.append(sessionId, { role: 'user', content: req.message, tool_calls: null, tool_call_id: null });
      const sticky = store.overrides(sessionId);
      const settings: TurnSettings = { ...agent.defaults, ...resolveSettings(req.overrides, sticky, agent.defaults) };
      // The session row records the model without this call's overrides, which are never stored.
      const sessionModel = resolveSettings(null, sticky, agent.defaults).model;
      const history = this.history(sessionId, req.parts);
      const engine = this.deps.engines[agent.engine];
      const onMessages: TokenUsage = { ...ZERO };
      let result: TurnResult;
      try {
        result = await engine.runTurn({
          sessionId,
          history,
          continued: req.message === null,
          settings,
          workspace: agent.workspace,
          resumeId: store.resumeId(sessionId),
          env: agent.env,
          allowedTools: agent.allowedTools,
          signal: abort.signal,
          events: {
            chunk: (content) => emit('inference.chunk', { content }),
            tool: (name) => emit('inference.tool', { name }),
            thinking: (content) => emit('thinking.chunk', { content }),
            toolChunk: (c) => emit('tool.chunk', c),
            message: (m) => {
              for (const k of ['input', 'output', 'cache', 'cost'] as const) onMessages[k] += m.tokenUsage?.[k] ?? 0;
              const stored = store.append(sessionId, m, sessionModel);
              emit('message', stored);
              return stored;
            },
          },
        });
      } catch (err) {
        result = {
          content: null,
          iterations: 0,
          usage: ZERO,
          toolCalls: [],
          failure: { code: 'LLM_ERROR', message: (err as Error).message },
        };
      }
      if (result.resumeId !== undefined) store.update(sessionId, { resumeId: result.resumeId });
      // The session's totals must add up to the turns' tokenUsage: what the messages did not carry is added here.
      const rest = unaccounted(result.usage, onMessages);
      if (rest) store.addUsage(sessionId, rest);
      if (result.budgetExceeded) emit('session.budget_exceeded', { sessionId, ...result.budgetExceeded });
      if (result.failure) {
        const error = { error: result.failure.message, code: result.failure.code };
        fail(error);
        return { ok: false, status: 500, ...error };
      }
      const done: TurnDone = {
        session: store.get(sessionId)!,
        agentName: agent.name,
        model: settings.model,
        iterations: result.iterations,
        durationMs: Math.max(0, clock.now() - startedAt),
        tokenUsage: result.usage,
        toolCalls: result.toolCalls,
        ...(result.cancelled ? { cancelled: true, cancelReason: result.cancelled.reason } : {}),
      };
      if (result.cancelled && result.content === null) {
        const details = { reason: result.cancelled.reason };
        fail({ error: `Cancelled (${result.cancelled.reason})`, code: 'CANCELLED', details });
        return { ok: true, done: { ...done, session: store.get(sessionId)! }, content: null };
      }
      emit('done', done);
      return { ok: true, done, content: result.content };
    } finally {
      this.running.delete(sessionId);
    }
  }

  private cancelled(sessionId: string, reason: string, fail: (error: TurnError) => void): TurnOutcome {
    fail({ error: `Cancelled (${reason})`, code: 'CANCELLED', details: { reason } });
    const session = this.deps.store.get(sessionId)!;
    return {
      ok: true,
      content: null,
      done: {
        session,
        agentName: session.agent_name,
        model: session.model,
        iterations: 0,
        durationMs: 0,
        tokenUsage: ZERO,
        toolCalls: [],
        cancelled: true,
        cancelReason: reason,
      },
    };
  }

  /** The stored history in the engine's shape; this turn's attachment parts replace the last user message's text. */
  private history(sessionId: string, parts: ContentPart[]): EngineMessage[] {
    const rows: SessionMessage[] = this.deps.store.messages(sessionId);
    const out: EngineMessage[] = rows.map((m) => ({
      role: m.role,
      content: m.content,
      ...(m.tool_calls ? { tool_calls: m.tool_calls } : {}),
      ...(m.tool_call_id ? { tool_call_id: m.tool_call_id } : {}),
    }));
    const last = out.at(-1);
    if (parts.length > 0 && last?.role === 'user') last.content = parts;
    return out;
  }
}

/** What a turn's usage holds beyond its messages' (never negative), or null when the messages carried it all. */
function unaccounted(turn: TokenUsage, messages: TokenUsage): TokenUsage | null {
  const rest = {
    input: Math.max(0, turn.input - messages.input),
    output: Math.max(0, turn.output - messages.output),
    cache: Math.max(0, turn.cache - messages.cache),
    cost: Math.max(0, turn.cost - messages.cost),
  };
  return rest.input || rest.output || rest.cost ? rest : null;
}

/**
 * A temperature bound for a turn of an engine that cannot set one (the Claude CLI has no such setting) is refused
 * with the layer that set it named (this call's overrides, the session's PATCH, the template), never dropped.
 */
function refuseTemperature(engine: ChatEngine, perCall: LlmSettings, session: LlmSettings, agent: LlmSettings): void {
  if (engine.noTemperature === undefined) return;
  const field =
    perCall.temperature !== undefined
      ? 'overrides.temperature'
      : session.temperature !== undefined
        ? 'temperature'
        : agent.temperature !== undefined
          ? 'chat.temperature'
          : null;
  if (field)
    throw new LeoError(
      400,
      `${field}: the ${engine.name} engine cannot set a temperature (${engine.noTemperature}); leave it out`,
      'VALIDATION_ERROR',
      { field },
    );
}
