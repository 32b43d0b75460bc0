import { z } from 'zod';

/**
 * The wire shapes of the agent chat endpoint (agent-chat-endpoint.md): session rows, message rows (what
 * `GET /sessions/:id/messages` and the SSE `message` event both carry), usage and tool-call summaries.
 */

export const TokenUsage = z.object({
  input: z.number().int(),
  output: z.number().int(),
  cache: z.number().int(),
  cost: z.number(),
});
export type TokenUsage = z.infer<typeof TokenUsage>;

export const ToolCallSummary = z.object({ name: z.string(), durationMs: z.number().int(), success: z.boolean() });
export type ToolCallSummary = z.infer<typeof ToolCallSummary>;

/** An OpenAI-style tool call as stored on an assistant message. */
export const ToolCall = z.object({
  id: z.string(),
  type: z.literal('function'),
  function: z.object({ name: z.string(), arguments: z.string() }),
});
export type ToolCall = z.infer<typeof ToolCall>;

export const FinishReason = z.enum(['stop', 'tool_calls', 'length']);
export type FinishReason = z.infer<typeof FinishReason>;

export const SessionMessage = z.object({
  id: z.number().int(),
  session_id: z.string(),
  role: z.enum(['user', 'assistant', 'tool']),
  content: z.string().nullable(),
  tool_calls: z.array(ToolCall).nullable(),
  tool_call_id: z.string().nullable(),
  thinking_content: z.string().nullable().optional(),
  thinking_tokens: z.number().int().nullable().optional(),
  created_at: z.string(),
  /** Assistant turns only: inference metadata. */
  finishReason: FinishReason.optional(),
  iteration: z.number().int().optional(),
  tokenUsage: TokenUsage.optional(),
});
export type SessionMessage = z.infer<typeof SessionMessage>;

/** What an engine hands the store for one message; ids, session and time are the store's. */
export type NewSessionMessage = Omit<SessionMessage, 'id' | 'session_id' | 'created_at'>;

export const SessionStatus = z.enum(['active', 'closed']);

/** The spec's `error` event: what a turn that ended without a reply came to (LLM_ERROR, CANCELLED, …). */
export const TurnError = z.object({
  error: z.string(),
  code: z.string(),
  details: z.record(z.string(), z.unknown()).optional(),
});
export type TurnError = z.infer<typeof TurnError>;

/** A turn's error as kept on its session, with when the turn ended. */
export const SessionError = TurnError.extend({ at: z.string() });
export type SessionError = z.infer<typeof SessionError>;

export const Session = z.object({
  id: z.string(),
  agent_name: z.string(),
  mode: z.literal('chat'),
  status: SessionStatus,
  model: z.string(),
  total_input_tokens: z.number().int(),
  total_output_tokens: z.number().int(),
  cost: z.number(),
  message_count: z.number().int(),
  /** How the last turn failed or was cancelled; null once a turn starts and while the last one succeeded. */
  last_error: SessionError.nullable(),
  created_at: z.string(),
  updated_at: z.string(),
});
export type Session = z.infer<typeof Session>;

/** `GET /sessions/:id/messages`: the stored messages, and the error the last turn ended with (or null). */
export const SessionMessagesResponse = z.object({
  sessionId: z.string(),
  messages: z.array(SessionMessage),
  error: SessionError.nullable(),
});
export type SessionMessagesResponse = z.infer<typeof SessionMessagesResponse>;

/** `GET /sessions/:id`: the record, and whether a turn is running or queued on it. */
export const SessionResponse = z.object({ session: Session, busy: z.boolean() });
export type SessionResponse = z.infer<typeof SessionResponse>;

/** `GET /agents/:name/sessions`: newest activity first. */
export const SessionListResponse = z.object({ sessions: z.array(Session) });
export type SessionListResponse = z.infer<typeof SessionListResponse>;

export const SessionDeletedResponse = z.object({ sessionId: z.string(), deleted: z.literal(true) });
export type SessionDeletedResponse = z.infer<typeof SessionDeletedResponse>;

/** Fire-and-forget's `202`: the id is null only when a new session took longer than the guard to be created. */
export const FireAndForgetResponse = z.object({ accepted: z.literal(true), sessionId: z.string().nullable() });
export type FireAndForgetResponse = z.infer<typeof FireAndForgetResponse>;

/** Reasoning, engine-blind: `{effort, max_tokens?}` (the legacy bare string is refused). */
export const ReasoningEffort = z.enum(['none', 'auto', 'low', 'medium', 'high', 'max']);
export const Reasoning = z.strictObject({
  effort: ReasoningEffort,
  max_tokens: z.number().int().positive().optional(),
});
export type Reasoning = z.infer<typeof Reasoning>;

/** The LLM parameters a call, a session (PATCH) or a template may set. */
export const LlmSettings = z.strictObject({
  model: z.string().min(1).max(200).optional(),
  temperature: z.number().min(0).max(2).optional(),
  max_tokens: z.number().int().positive().optional(),
  reasoning: Reasoning.optional(),
});
export type LlmSettings = z.infer<typeof LlmSettings>;

/**
 * The `done` event: the turn's end, with the session after it. `cancelled` and `cancelReason` are there only when a
 * cancel (user, disconnect, budget, shutdown) interrupted the loop.
 */
export const TurnDone = z.object({
  session: Session,
  agentName: z.string(),
  model: z.string(),
  iterations: z.number().int(),
  durationMs: z.number(),
  tokenUsage: TokenUsage,
  toolCalls: z.array(ToolCallSummary),
  cancelled: z.literal(true).optional(),
  cancelReason: z.string().nullable().optional(),
});
export type TurnDone = z.infer<typeof TurnDone>;

/**
 * `POST /agents/:name/chat` answered as JSON: the assistant's reply to the turn, and the turn's `done` as the SSE
 * stream ends it (so a cancel reads as `done.cancelled` / `done.cancelReason`, as the spec says). `content` is null
 * when the turn was cancelled before a final reply; `cancelled`/`cancelReason` at the top level are kept for clients
 * written before `done` was added.
 */
export const ChatTurnResponse = z.object({
  sessionId: z.string(),
  message: z.object({ role: z.literal('assistant'), content: z.string().nullable() }),
  tokenUsage: TokenUsage,
  toolCalls: z.array(ToolCallSummary),
  cancelled: z.literal(true).optional(),
  cancelReason: z.string().nullable().optional(),
  done: TurnDone,
});
export type ChatTurnResponse = z.infer<typeof ChatTurnResponse>;
export const SessionCancelResponse = z.object({ sessionId: z.string(), cancelled: z.boolean() });
export const SessionPatchResponse = z.object({ session: Session });
/** `GET /sessions/:id/config`: the session's own settings, its agent's, and what a turn runs with. */
export const SessionConfigResponse = z.object({ session: LlmSettings, agent: LlmSettings, effective: LlmSettings });
