// The transcript readers by format, for the pool threads (reply capture, turn usage). Each lives in its harness's
// folder and is reached here without the harness table, whose adapters bring zod: about 10 MB in every thread that
// loads it (docs/DECISIONS.md, the idle memory section).
import type { HarnessTurn } from '../wire/usage.js';
import { claudeTranscript } from './claude/transcript-reader.js';
import { codexTranscript } from './codex/transcript-reader.js';
import type { TranscriptEntry } from './transcript-entry.js';

/** One CLI's transcript format, read. Pure over JSONL lines (in file order). */
export interface TranscriptReader {
  /** The entries reply capture reads. */
  parse(lines: readonly string[]): TranscriptEntry[];
  /** The usage of turn `turn` (the Stop's name for it), or of the last turn with usage without one. */
  turnUsage(lines: readonly string[], turn?: string): HarnessTurn | null;
  /** The last turn, only once the transcript shows it ended: the start-up catch-up for a Stop the daemon missed. */
  lastEnded?(lines: readonly string[]): HarnessTurn | null;
}

export const TRANSCRIPT_READERS = { claude: claudeTranscript, codex: codexTranscript } satisfies Record<
  string,
  TranscriptReader
>;

/** The transcript formats Leo reads: Claude Code's session transcript and Codex's rollout. */
export type TranscriptFormat = keyof typeof TRANSCRIPT_READERS;
