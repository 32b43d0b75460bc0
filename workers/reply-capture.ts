import { captureReply, type CaptureResult } from '../src/chat/reply-capture.js';
import { readTranscriptTail } from '../src/chat/transcript.js';

export interface ReplyCaptureInput {
  transcript: string;
  prompt: string;
  since?: number;
  endedPromptId?: string;
}

/** Reads the tail of a Claude transcript and finds the reply to one delivered prompt, off the main thread. */
export async function captureReplyTask(input: ReplyCaptureInput): Promise<CaptureResult> {
  const entries = await readTranscriptTail(input.transcript);
  return captureReply(entries, input.prompt, {
    ...(input.since !== undefined ? { since: input.since } : {}),
    ...(input.endedPromptId !== undefined ? { endedPromptId: input.endedPromptId } : {}),
  });
}
