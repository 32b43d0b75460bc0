import type { TranscriptFormat } from '../harnesses/transcript-readers.js';
/** What the pool's usage read (workers/turn-usage.ts) is sent: one transcript tail, read by its format's reader. */
export interface TurnUsageInput {
  format: TranscriptFormat;
  /** The Stop hook's transcript_path: Claude's transcript or Codex's rollout. */
  transcript: string;
  /** The turn the Stop ended (Claude's prompt_id, Codex's turn_id), when it said. */
  turn?: string;
  /**
   * No Stop said the turn ended (its Stop found the daemon down): the last turn, only once its transcript shows it
   * ended (Claude's; a Codex rollout is not read this way), else null.
   */
  ended?: true;
}
