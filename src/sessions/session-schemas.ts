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
  created_at: z.string(),
  updated_at: z.string(),
});
export type Session = z.infer<typeof Session>;

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
