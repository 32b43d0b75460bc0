import { readTailLines } from '../src/harnesses/tail-lines.js';
import { HARNESSES } from '../src/harnesses/index.js';
import type { TurnUsageInput } from '../src/usage/turn-usage-input.js';
import type { HarnessTurn } from '../src/wire/usage.js';

/** Reads the tail of a transcript once and finds the ended turn's usage, off the main thread. */
export async function readTurnUsage(input: TurnUsageInput): Promise<HarnessTurn | null> {
  const lines = await readTailLines(input.transcript);
  const usage = HARNESSES[input.harness].usage;
  if (input.ended) return usage?.lastEnded?.(lines) ?? null;
  return usage?.fromTranscript?.(lines, input.turn) ?? null;
}
