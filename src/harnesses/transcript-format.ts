// Which reader an agent's transcript needs: the harness whose format its Stop hook's transcript_path is in.

/** Whose transcript a file is: Claude Code's session transcript or Codex's rollout (codex/rollout.ts). */
export type TranscriptFormat = 'claude' | 'codex';

/**
 * The transcript format of an agent's harness. Any harness but Codex's is read as Claude's, as before Codex had
 * hooks: a shell template may run Claude itself, with its own hooks posting Claude's transcript.
 */
export function transcriptFormat(harness: string): TranscriptFormat {
  return harness === 'codex' ? 'codex' : 'claude';
}

