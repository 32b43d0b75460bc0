import type { Clock } from '../core/clock.js';
import type { Logger } from '../core/logger.js';
import type { CaptureResult } from './reply-capture.js';

/** A delivered prompt whose reply may still come: it waits at most this long for its turn to show up. */
export const REPLY_WAIT_MS = 30 * 60_000;
/**
 * Prompts kept waiting per agent (the newest). Only a Stop hook clears them, and an agent without one (any harness but
 * Claude's) never sends it: without a bound every prompt typed into such an agent stayed in memory for good (found by
 * the soak). A Claude agent has a handful queued behind a running turn at most.
 */
export const MAX_AWAITING_PER_AGENT = 100;
/** Transcript timestamps and the daemon clock can disagree a little; look back this much before the delivery. */
const SINCE_SLACK_MS = 5_000;

interface Awaiting {
  messageId: string;
  prompt: string;
  deliveredAt: number;
}

export interface ReplyWatchDeps {
  clock: Clock;
  logger: Logger;
  /** Runs the transcript read and the capture on the worker pool. */
  capture(input: { transcript: string; prompt: string; since: number; endedPromptId?: string }): Promise<CaptureResult>;
  /** Posts the captured reply into the agent's thread. */
  post(agent: string, text: string, replyTo: string): void;
}

/**
 * Claude replies (leo-chat.md, Replies): every [Leo Chat] prompt delivered to an agent waits here; on the agent's Stop
 * hook the transcript is read and the turn's last assistant message is posted, unless the agent posted with
 * leo_chat_post, another prompt took the turn over, or the reply is empty. A prompt not in the transcript yet (queued
 * behind a running turn) keeps waiting, up to 30 minutes.
 */
export class ReplyWatch {
  private readonly awaiting = new Map<string, Awaiting[]>();

  constructor(private readonly deps: ReplyWatchDeps) {}

  delivered(agent: string, messageId: string, prompt: string): void {
    const list = this.awaiting.get(agent) ?? [];
    list.push({ messageId, prompt, deliveredAt: this.deps.clock.now() });
    // Trimmed in place: a Stop being handled meanwhile walks this same array, as it always has.
    if (list.length > MAX_AWAITING_PER_AGENT) list.splice(0, list.length - MAX_AWAITING_PER_AGENT);
    this.awaiting.set(agent, list);
  }

  async onStop(agent: string, payload: Record<string, unknown>): Promise<void> {
    const transcript = typeof payload.transcript_path === 'string' ? payload.transcript_path : null;
    const list = this.awaiting.get(agent);
    if (!transcript || !list?.length) return;
    const now = this.deps.clock.now();
    const keep: Awaiting[] = [];
    for (const a of list) {
      if (now - a.deliveredAt > REPLY_WAIT_MS) continue;
      let result: CaptureResult;
      try {
        result = await this.deps.capture({
          transcript,
          prompt: a.prompt,
          since: a.deliveredAt - SINCE_SLACK_MS,
          ...(typeof payload.prompt_id === 'string' ? { endedPromptId: payload.prompt_id } : {}),
        });
      } catch (err) {
        this.deps.logger.warn({ agent, err: (err as Error).message }, 'reply capture failed');
        keep.push(a);
        continue;
      }
      if (result.kind === 'reply') this.deps.post(agent, result.text, a.messageId);
      else if (result.kind === 'not_found' || result.kind === 'pending') keep.push(a);
      else this.deps.logger.debug({ agent, message: a.messageId, reason: result.reason }, 'no reply to post');
    }
    if (keep.length) this.awaiting.set(agent, keep);
    else this.awaiting.delete(agent);
  }
}
