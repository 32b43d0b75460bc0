import type { Parameters } from 'fast-check';

/**
 * Fixed seed and bounded runs so CI replays the same cases every time. Locally, LEO_FUZZ_SCALE=20 runs twenty times as
 * many cases and LEO_FUZZ_SEED=<n> explores another part of the input space; a failure prints the seed and path that
 * replay it.
 */
const SEED = Number(process.env.LEO_FUZZ_SEED ?? 20_240_909);
const SCALE = Math.max(0.01, Number(process.env.LEO_FUZZ_SCALE ?? 1));

export function fuzzParams<T>(baseRuns: number): Parameters<T> {
  return { seed: SEED, numRuns: Math.max(1, Math.round(baseRuns * SCALE)) };
}
