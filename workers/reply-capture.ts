import { captureReplies, type Captured, type ReplyCaptureInput } from '../src/chat/replies/reply-capture.js';
import { readTranscriptTail } from '../src/harnesses/claude/transcript.js';
import { TRANSCRIPT_READERS } from '../src/harnesses/transcript-readers.js';

/** Reads the tail of a transcript once and finds the replies to an agent's awaiting prompts, off the main thread. */
export async function captureReplyTask(input: ReplyCaptureInput): Promise<Captured[]> {
  const entries = await readTranscriptTail(input.transcript, {
    parse: TRANSCRIPT_READERS[input.format ?? 'claude'].parse,
  });
  return captureReplies(entries, input.prompts, {
    ...(input.after ? { after: input.after } : {}),
    ...(input.ended ? { ended: input.ended } : {}),
  });
}
