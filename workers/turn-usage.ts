import { readTailLines } from '../src/harnesses/tail-lines.js';
import { HARNESSES } from '../src/harnesses/index.js';
import type { Harness } from '../src/harnesses/types.js';
import type { HarnessTurn } from '../src/wire/usage.js';

export interface TurnUsageInput {
  harness: Harness;
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
  const usage = HARNESSES[input.harness].usage;
  if (input.ended) return usage?.lastEnded?.(lines) ?? null;
  return usage?.fromTranscript?.(lines, input.turn) ?? null;
}
