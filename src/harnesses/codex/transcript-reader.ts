// Codex's rollout, as the pool reads it (src/harnesses/transcript-readers.ts). No catch-up at start-up: a rollout's
// last turn is not read as ended without its Stop.
import type { TranscriptReader } from '../transcript-readers.js';
import { parseRolloutLines } from './rollout.js';
import { codexTurnUsage } from './usage.js';

export const codexTranscript: TranscriptReader = { parse: parseRolloutLines, turnUsage: codexTurnUsage };
