import {
  captureReplies,
  type AwaitingPrompt,
  type Captured,
  type EndedTurn,
  type TranscriptMark,
} from '../src/chat/replies/reply-capture.js';
import { readTranscriptTail } from '../src/harnesses/claude/transcript.js';
import { transcriptParser, type TranscriptFormat } from '../src/harnesses/transcript-format.js';

export interface ReplyCaptureInput {
  transcript: string;
  /** Default claude. */
  format?: TranscriptFormat;
  prompts: AwaitingPrompt[];
  after?: TranscriptMark;
  ended?: EndedTurn;
}

/** Reads the tail of a transcript once and finds the replies to an agent's awaiting prompts, off the main thread. */
export async function captureReplyTask(input: ReplyCaptureInput): Promise<Captured[]> {
  const entries = await readTranscriptTail(input.transcript, { parse: transcriptParser(input.format) });
  return captureReplies(entries, input.prompts, {
    ...(input.after ? { after: input.after } : {}),
    ...(input.ended ? { ended: input.ended } : {}),
  });
}
