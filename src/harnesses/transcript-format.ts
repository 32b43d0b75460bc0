// Which reader an agent's transcript needs: the harness whose format its Stop hook's transcript_path is in.
import { adapterOf, HARNESSES } from './index.js';
import type { TranscriptEntry } from './transcript-entry.js';

/** The harnesses whose transcript formats Leo reads: Claude Code's session transcript and Codex's rollout. */
export type TranscriptFormat = 'claude' | 'codex';

/**
 * The transcript format of an agent's harness. A harness Leo does not know is read as Claude's, as before Codex had
 * hooks: a shell template may run Claude itself, with its own hooks posting Claude's transcript.
 */
export function transcriptFormat(harness: string): TranscriptFormat {
  return adapterOf(harness)?.transcriptFormat ?? 'claude';
}

/** The reader of a transcript format (Claude's when none is named). */
export function transcriptParser(format: TranscriptFormat = 'claude'): (lines: readonly string[]) => TranscriptEntry[] {
  const parse = HARNESSES[format].parseTranscript;
  if (!parse) throw new Error(`no transcript reader for ${format}`);
  return parse;
}
