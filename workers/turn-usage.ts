import { readTailLines } from '../src/chat/replies/transcript.js';
import { claudeLastTurnEnded, claudeTurnUsage } from '../src/usage/claude-usage.js';
import { codexTurnUsage } from '../src/usage/codex-usage.js';
import type { TurnUsageInput } from '../src/usage/turn-usage-input.js';
import type { HarnessTurn } from '../src/wire/usage.js';

/** Reads the tail of a transcript once and finds the ended turn's usage, off the main thread. */
export async function readTurnUsage(input: TurnUsageInput): Promise<HarnessTurn | null> {
  const lines = await readTailLines(input.transcript);
  if (input.ended) return input.harness === 'claude' && claudeLastTurnEnded(lines) ? claudeTurnUsage(lines) : null;
  return input.harness === 'claude' ? claudeTurnUsage(lines, input.turn) : codexTurnUsage(lines, input.turn);
}
