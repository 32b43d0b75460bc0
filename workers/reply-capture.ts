import { captureReplies, type Captured, type ReplyCaptureInput } from '../src/chat/replies/reply-capture.js';
import { parseRolloutLines } from '../src/chat/replies/codex-rollout.js';
import { readTranscriptTail } from '../src/chat/replies/transcript.js';

/** Reads the tail of a transcript once and finds the replies to an agent's awaiting prompts, off the main thread. */
export async function captureReplyTask(input: ReplyCaptureInput): Promise<Captured[]> {
  const entries = await readTranscriptTail(
    input.transcript,
    input.format === 'codex' ? { parse: parseRolloutLines } : {},
  );
  return captureReplies(entries, input.prompts, {
    ...(input.after ? { after: input.after } : {}),
    ...(input.ended ? { ended: input.ended } : {}),
  });
}
