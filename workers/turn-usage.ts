import { readTailLines } from '../src/harnesses/tail-lines.js';
import { TRANSCRIPT_READERS } from '../src/harnesses/transcript-readers.js';
import type { TurnUsageInput } from '../src/usage/turn-usage-input.js';
import type { HarnessTurn } from '../src/wire/usage.js';

/** Reads the tail of a transcript once and finds the ended turn's usage, off the main thread. */
export async function readTurnUsage(input: TurnUsageInput): Promise<HarnessTurn | null> {
  const lines = await readTailLines(input.transcript);
  const reader = TRANSCRIPT_READERS[input.format];
  if (input.ended) return reader.lastEnded?.(lines) ?? null;
  return reader.turnUsage(lines, input.turn);
}
