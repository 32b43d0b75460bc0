// Which reader an agent's transcript needs: the harness whose format its Stop hook's transcript_path is in.
import { adapterOf } from './index.js';
import type { TranscriptFormat } from './transcript-readers.js';

export type { TranscriptFormat } from './transcript-readers.js';

/**
 * The transcript format of an agent's harness. A harness Leo does not know is read as Claude's, as before Codex had
 * hooks: a shell template may run Claude itself, with its own hooks posting Claude's transcript.
 */
export function transcriptFormat(harness: string): TranscriptFormat {
  return adapterOf(harness)?.transcriptFormat ?? 'claude';
}
