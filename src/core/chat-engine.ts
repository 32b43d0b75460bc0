import type {
  LlmSettings,
  NewSessionMessage,
  SessionMessage,
  ToolCall,
  ToolCallSummary,
  TokenUsage,
} from '../wire/sessions.js';

/**
 * The seam between a chat turn and whatever runs it: the `openai` agent loop or the `claude-cli` engine. The session
 * service owns storage and streaming; an engine reports through `TurnEvents` and returns what the turn came to.
 */

/** One part of a user message sent to the model; attachments become extra parts of the current turn only. */
export type ContentPart =
  | { type: 'text'; text: string }
  | { type: 'image_url'; image_url: { url: string } }
  | { type: 'input_audio'; input_audio: { data: string; format?: string } }
  | { type: 'video_url'; video_url: { url: string } }
  | { type: 'file'; file: { filename?: string; file_data?: string; file_url?: string } };

/** The history replayed to the engine each turn, in the OpenAI chat shape. */
export interface EngineMessage {
  role: 'user' | 'assistant' | 'tool';
  content: string | ContentPart[] | null;
  tool_calls?: ToolCall[] | null;
  tool_call_id?: string | null;
}

export interface TurnEvents {
  /** inference.chunk */
  chunk(content: string): void;
  /** inference.tool: a tool's name, as soon as the stream shows it. */
  tool(name: string): void;
  /** thinking.chunk */
  thinking(content: string): void;
  /** tool.chunk: live output of a running tool. */
  toolChunk(chunk: { tool_call_id: string; name: string; content: string }): void;
  /** Stores an assistant or tool message and emits it as the `message` event; answers the stored row. */
  message(m: NewSessionMessage): SessionMessage;
}

export interface TurnSettings extends LlmSettings {
  model: string;
  /** OpenAI-compatible base URL (…/v1) and key, for the openai engine. */
  baseUrl?: string;
  apiKey?: string;
  /** USD per million tokens, for the cost estimate; absent: cost 0. */
  price?: { input: number; output: number; cache?: number };
  maxIterations: number;
  maxDurationMs: number;
  /** Cooperative budgets: breaching one cancels the turn with reason `budget_exceeded`. */
  budget?: { max_tokens?: number; max_wall_seconds?: number };
}

export interface TurnInput {
  sessionId: string;
  /** Everything stored so far, the new user message last (with this turn's attachment parts, if any). */
  history: EngineMessage[];
  /** A `continue: true` turn: no new user message, the history ends wherever the last turn left it. */
  continued?: boolean;
  settings: TurnSettings;
  /** The agent's workspace: tools are scoped to it. */
  workspace: string;
  /** The engine's own resume id from the previous turn (claude-cli's session id), if any. */
  resumeId?: string | null;
  /** The agent's environment (its named environments and template env): a CLI engine runs with it. */
  env?: Record<string, string>;
  /** Tools the template allows without asking (claude-cli's --allowedTools). */
  allowedTools?: string[];
  signal: AbortSignal;
  events: TurnEvents;
}

export type TurnFailure = { code: 'LLM_ERROR' | 'MAX_ITERATIONS' | 'MAX_DURATION'; message: string };

export interface TurnResult {
  /** The last iteration's reply text; null when the turn produced none. */
  content: string | null;
  iterations: number;
  usage: TokenUsage;
  toolCalls: ToolCallSummary[];
  /** Set when the turn was cancelled (user_cancel, client_disconnect, budget_exceeded, shutdown). */
  cancelled?: { reason: string };
  /** Set when a budget was breached (the turn is also cancelled). */
  budgetExceeded?: { kind: 'max_tokens' | 'max_wall_seconds'; limit: number; used: number };
  failure?: TurnFailure;
  /** The engine's resume id for the next turn (claude-cli). */
  resumeId?: string | null;
}

export interface ChatEngine {
  readonly name: 'openai' | 'claude-cli';
  /** Whether it sends a turn's attachments to the model; one that does not refuses a call with any. */
  readonly takesAttachments: boolean;
  /** Why it cannot set the sampling temperature, said when one is refused; absent: it can. */
  readonly noTemperature?: string;
  runTurn(input: TurnInput): Promise<TurnResult>;
}
