import { readTailLines } from '../src/harnesses/tail-lines.js';
import { claudeLastTurnEnded, claudeTurnUsage } from '../src/harnesses/claude/usage.js';
import { codexTurnUsage } from '../src/harnesses/codex/usage.js';
import type { HarnessTurn } from '../src/wire/usage.js';

export interface TurnUsageInput {
  harness: 'claude' | 'codex';
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

/** Reads the tail of a transcript once and finds the ended turn's usage, off the main thread. */
export async function readTurnUsage(input: TurnUsageInput): Promise<HarnessTurn | null> {
  const lines = await readTailLines(input.transcript);
  if (input.ended) return input.harness === 'claude' && claudeLastTurnEnded(lines) ? claudeTurnUsage(lines) : null;
  return input.harness === 'claude' ? claudeTurnUsage(lines, input.turn) : codexTurnUsage(lines, input.turn);
}
