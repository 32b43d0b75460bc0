import crypto from 'node:crypto';
import type { Clock } from '../core/clock.js';
import type { Database } from '../store/database.js';
import type {
  LlmSettings,
  NewSessionMessage,
  Session,
  SessionError,
  SessionMessage,
  TokenUsage,
} from '../wire/sessions.js';

interface SessionRow {
  id: string;
  agent_name: string;
  mode: string;
  status: 'active' | 'closed';
  model: string;
  total_input_tokens: number;
  total_output_tokens: number;
  cost: number;
  message_count: number;
  overrides: string | null;
  resume_id: string | null;
  last_error: string | null;
  created_at: string;
  updated_at: string;
}

interface MessageRow {
  id: number;
  session_id: string;
  role: SessionMessage['role'];
  content: string | null;
  tool_calls: string | null;
  tool_call_id: string | null;
  thinking_content: string | null;
  thinking_tokens: number | null;
  finish_reason: string | null;
  iteration: number | null;
  token_usage: string | null;
  created_at: string;
}

/** chat.db's sessions and their messages: every message, tool call and token of a session, replayable. */
export class SessionStore {
  constructor(
    private readonly db: Database,
    private readonly clock: Clock,
  ) {}

  create(agent: string, model: string): Session {
    const id = `sess_${crypto.randomBytes(8).toString('hex')}`;
    const now = this.now();
    this.db
      .prepare(
        `INSERT INTO chat_sessions (id, agent_name, status, model, created_at, updated_at) VALUES (?, ?, 'active', ?, ?, ?)`,
      )
      .run(id, agent, model, now, now);
    return this.get(id)!;
  }

  get(id: string): Session | null {
    const row = this.row(id);
    return row ? toSession(row) : null;
  }

  overrides(id: string): LlmSettings {
    const raw = this.row(id)?.overrides;
    return raw ? (JSON.parse(raw) as LlmSettings) : {};
  }

  resumeId(id: string): string | null {
    return this.row(id)?.resume_id ?? null;
  }

  update(
    id: string,
    patch: {
      overrides?: LlmSettings;
      status?: 'active' | 'closed';
      resumeId?: string | null;
      lastError?: SessionError | null;
      model?: string;
    },
  ): Session {
    const sets = ['updated_at = @now'];
    const args: Record<string, unknown> = { id, now: this.now() };
    if (patch.overrides !== undefined) (sets.push('overrides = @ov'), (args.ov = JSON.stringify(patch.overrides)));
    if (patch.status !== undefined) (sets.push('status = @status'), (args.status = patch.status));
    if (patch.resumeId !== undefined) (sets.push('resume_id = @rid'), (args.rid = patch.resumeId));
    if (patch.model !== undefined) (sets.push('model = @model'), (args.model = patch.model));
    if (patch.lastError !== undefined)
      (sets.push('last_error = @err'), (args.err = patch.lastError && JSON.stringify(patch.lastError)));
    this.db.prepare(`UPDATE chat_sessions SET ${sets.join(', ')} WHERE id = @id`).run(args);
    return this.get(id)!;
  }

  /** Adds a message and keeps the session's counters (messages, tokens, cost, model) in step, in one transaction. */
  append(sessionId: string, m: NewSessionMessage, model?: string): SessionMessage {
    const now = this.now();
    const usage: TokenUsage | undefined = m.tokenUsage;
    const id = this.db.transaction(() => {
      const r = this.db
        .prepare(
          `INSERT INTO chat_session_messages (session_id, role, content, tool_calls, tool_call_id, thinking_content,
             thinking_tokens, finish_reason, iteration, token_usage, created_at)
           VALUES (@session_id, @role, @content, @tool_calls, @tool_call_id, @thinking_content, @thinking_tokens,
             @finish_reason, @iteration, @token_usage, @created_at)`,
        )
        .run({
          session_id: sessionId,
          role: m.role,
          content: m.content,
          tool_calls: m.tool_calls ? JSON.stringify(m.tool_calls) : null,
          tool_call_id: m.tool_call_id,
          thinking_content: m.thinking_content ?? null,
          thinking_tokens: m.thinking_tokens ?? null,
          finish_reason: m.finishReason ?? null,
          iteration: m.iteration ?? null,
          token_usage: usage ? JSON.stringify(usage) : null,
          created_at: now,
        });
      this.db
        .prepare(
          `UPDATE chat_sessions SET message_count = message_count + 1,
             total_input_tokens = total_input_tokens + @input, total_output_tokens = total_output_tokens + @output,
             cost = cost + @cost, model = COALESCE(@model, model), updated_at = @now WHERE id = @id`,
        )
        .run({
          id: sessionId,
          input: usage?.input ?? 0,
          output: usage?.output ?? 0,
          cost: usage?.cost ?? 0,
          model: model ?? null,
          now,
        });
      return Number(r.lastInsertRowid);
    })();
    return this.message(id)!;
  }

  /** Adds usage no message carries (the claude-cli engine learns a turn's cost only from its final result). */
  addUsage(sessionId: string, u: TokenUsage): void {
    this.db
      .prepare(
        `UPDATE chat_sessions SET total_input_tokens = total_input_tokens + @input,
           total_output_tokens = total_output_tokens + @output, cost = cost + @cost, updated_at = @now WHERE id = @id`,
      )
      .run({ id: sessionId, input: u.input, output: u.output, cost: u.cost, now: this.now() });
  }

  /** An agent's sessions, most recently active first (the newer of two touched in the same millisecond first). */
  list(agent: string, limit: number): Session[] {
    const rows = this.db
      .prepare('SELECT * FROM chat_sessions WHERE agent_name = ? ORDER BY updated_at DESC, rowid DESC LIMIT ?')
      .all(agent, limit) as SessionRow[];
    return rows.map(toSession);
  }

  /** The ids of sessions untouched since `cutoffMs`. */
  idleSince(cutoffMs: number): string[] {
    const rows = this.db
      .prepare('SELECT id FROM chat_sessions WHERE updated_at < ?')
      .all(new Date(cutoffMs).toISOString()) as { id: string }[];
    return rows.map((r) => r.id);
  }

  /** Removes a session and its messages. */
  delete(id: string): void {
    this.db.transaction(() => {
      this.db.prepare('DELETE FROM chat_session_messages WHERE session_id = ?').run(id);
      this.db.prepare('DELETE FROM chat_sessions WHERE id = ?').run(id);
    })();
  }

  messages(sessionId: string): SessionMessage[] {
    const rows = this.db
      .prepare('SELECT * FROM chat_session_messages WHERE session_id = ? ORDER BY id')
      .all(sessionId) as MessageRow[];
    return rows.map(toMessage);
  }

  private message(id: number): SessionMessage | null {
    const row = this.db.prepare('SELECT * FROM chat_session_messages WHERE id = ?').get(id) as MessageRow | undefined;
    return row ? toMessage(row) : null;
  }

  private row(id: string): SessionRow | undefined {
    return this.db.prepare('SELECT * FROM chat_sessions WHERE id = ?').get(id) as SessionRow | undefined;
  }

  /** ISO 8601 UTC with milliseconds, as the spec's examples show. */
  private now(): string {
    return new Date(this.clock.now()).toISOString();
  }
}

function toSession(r: SessionRow): Session {
  return {
    id: r.id,
    agent_name: r.agent_name,
    mode: 'chat',
    status: r.status,
    model: r.model,
    total_input_tokens: r.total_input_tokens,
    total_output_tokens: r.total_output_tokens,
    cost: r.cost,
    message_count: r.message_count,
    last_error: r.last_error ? (JSON.parse(r.last_error) as SessionError) : null,
    created_at: r.created_at,
    updated_at: r.updated_at,
  };
}

/** Assistant rows carry the inference metadata; user and tool rows the plain message schema. */
function toMessage(r: MessageRow): SessionMessage {
  const base: SessionMessage = {
    id: r.id,
    session_id: r.session_id,
    role: r.role,
    content: r.content,
    tool_calls: r.tool_calls ? JSON.parse(r.tool_calls) : null,
    tool_call_id: r.tool_call_id,
    created_at: r.created_at,
  };
  if (r.role !== 'assistant') return base;
  return {
    ...base,
    thinking_content: r.thinking_content,
    thinking_tokens: r.thinking_tokens,
    ...(r.finish_reason ? { finishReason: r.finish_reason as NonNullable<SessionMessage['finishReason']> } : {}),
    ...(r.iteration !== null ? { iteration: r.iteration } : {}),
    ...(r.token_usage ? { tokenUsage: JSON.parse(r.token_usage) as TokenUsage } : {}),
  };
}
