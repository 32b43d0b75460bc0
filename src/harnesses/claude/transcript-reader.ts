// Claude Code's transcript, as the pool reads it (src/harnesses/transcript-readers.ts).
import type { TranscriptReader } from '../transcript-readers.js';
import { parseTranscriptLines } from './transcript.js';
import { claudeLastTurnEnded, claudeTurnUsage } from './usage.js';

export const claudeTranscript: TranscriptReader = {
  parse: parseTranscriptLines,
  turnUsage: claudeTurnUsage,
  lastEnded: (lines) => (claudeLastTurnEnded(lines) ? claudeTurnUsage(lines) : null),
};
