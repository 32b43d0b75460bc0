/**
 * The normalized transcript entry reply capture reads, and the few `other` details it acts on. Free of imports so a
 * harness plugin running inside another CLI's runtime (opencode's, under Bun) can write entries in this shape.
 */
export type TranscriptEntryKind =
  'user_prompt' | 'assistant_text' | 'tool_use' | 'tool_result' | 'turn_error' | 'other';

export interface TranscriptEntry {
  kind: TranscriptEntryKind;
  /**
   * user_prompt: what the person (or task) sent, without Claude's context wrappers. assistant_text, tool_result: the
   * text. turn_error: the harness's own words for why the turn failed (the model provider's error, say).
   */
  text?: string;
  /** turn_error: the harness's own name for the failure when it gives one (Claude's `authentication_failed`). */
  error?: string;
  /** tool_use: the tool as the model named it, e.g. `Bash` or `mcp__leo__leo_chat_post`. */
  toolName?: string;
  /** tool_use, tool_result: pairs a result with its call. */
  toolUseId?: string;
  /** tool_result: the call failed. */
  isError?: boolean;
  /** assistant_text, tool_use: the API message the block belongs to; Claude writes one line per block. */
  messageId?: string;
  /** user_prompt: absorbed into a turn that was already running, so it shares that turn's reply. */
  midTurn?: boolean;
  /** user_prompt: Claude's turn counter, when recorded; prompts that share one share a turn. */
  turnIndex?: number;
  /** user_prompt: who sent it, e.g. `human` or `task-notification`, when known. */
  origin?: string;
  /**
   * user_prompt: the id of the turn's opening prompt, which Claude's hooks report as `prompt_id` (a Stop names the turn
   * it ends). A mid-turn prompt gets the id of the turn it joined.
   */
  promptId?: string;
  /** other: what the line was (`system:stop_hook_summary`, `attachment:date`, `assistant:thinking`, …), for logs. */
  detail?: string;
  uuid?: string;
  timestamp?: string;
}

/**
 * The `other` detail of the marker Claude records when the person interrupts a turn (Escape): the turn ends there,
 * without a Stop hook.
 */
export const INTERRUPTED = 'user:interrupted';

/** The `other` detail of a turn's recorded end in a transcript Leo writes itself (see LEO_LINE_TYPE). */
export const TURN_ENDED = 'leo:turn_end';

/**
 * The line type of a transcript Leo's own harness plugin writes for a CLI whose history Leo cannot read (opencode):
 * `{"type":"leo","entry":<TranscriptEntry>}`, one entry per line, already normalized.
 */
export const LEO_LINE_TYPE = 'leo';
