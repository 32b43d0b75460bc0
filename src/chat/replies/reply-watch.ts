import type { Clock } from '../../core/clock.js';
import type { Logger } from '../../core/logger.js';
import { KeyedQueue } from '../../core/keyed-queue.js';
import type { Captured, CaptureResult, EndedTurn, ReplyCaptureInput } from './reply-capture.js';
import type { TranscriptFormat } from '../../harnesses/transcript-format.js';
import type { ReplyStore } from './reply-store.js';
import type { TurnFailure } from './turn-failure.js';
import { StepTimes } from '../../delivery/step-times.js';

/** A delivered prompt not in the transcript yet waits at most this long for its turn to show up. */
export const REPLY_WAIT_MS = 30 * 60_000;
/**
 * Prompts kept waiting per agent (the newest). Only a Stop hook settles them, and an agent without one (any harness
 * but Claude's) never sends it: without a bound every prompt typed into such an agent stayed for good (found by the
 * soak). A Claude agent has a handful queued behind a running turn at most.
 */
export const MAX_AWAITING_PER_AGENT = 100;
/** Transcript timestamps and the daemon clock can disagree a little; look back this much before the delivery. */
const SINCE_SLACK_MS = 5_000;
/**
 * When a Stop that named its turn is looked at again (ms after it): a loaded CLI can run its hook before the turn's
 * last entry is in the transcript, and nothing else would look before the screen goes still. Real time: it paces
 * reads of a file, not the daemon's clock.
 */
export const STOP_LOOKS_AGAIN_MS = [1_000, 3_000];

export interface ReplyWatchDeps {
  clock: Clock;
  logger: Logger;
  store: ReplyStore;
  /** Whether the agent still exists: at start-up, a removed agent's prompts wait for nothing. */
  exists(agent: string): boolean;
  /** How the agent's CLI records its turns (by its harness). */
  format(agent: string): TranscriptFormat;
  /** Runs the transcript read and the capture on the worker pool. */
  capture(input: ReplyCaptureInput): Promise<Captured[]>;
  /**
   * Whether the agent posted into its thread (leo_chat_post; not a captured reply nor a task's card) after message
   * `messageId`: a turn whose transcript shows a post call that never reached the thread gets its closing words.
   */
  postedAfter(agent: string, messageId: string): boolean;
  /** Posts the captured reply into the agent's thread (inside the transaction that ends the prompt's wait). */
  post(agent: string, text: string, replyTo: string): void;
  /**
   * The turn of message `messageId` ended without an answer the owner can read: it failed (`failure`, the harness's
   * words) or was interrupted. Called once per message, inside the same transaction, so a note says so once.
   */
  unanswered(agent: string, messageId: string, why: { failure: TurnFailure } | 'interrupted'): void;
}

/**
 * Replies of Claude and Codex agents (leo-chat.md, Replies): every [Leo Chat] prompt typed into an agent waits here (in chat.db, so a
 * restart loses none); on the agent's Stop hook the transcript is read and each prompt whose turn ended gets that
 * turn's last assistant message posted, unless the agent posted with leo_chat_post, another prompt took the turn over,
 * the turn was interrupted or the reply is empty. A turn that failed or was interrupted gets a note saying so instead
 * (unanswered). A prompt not in the transcript yet (queued behind a running turn)
 * keeps waiting, up to 30 minutes. At start-up the same check catches up on turns that ended while the daemon was
 * down, when their Stop hook found no daemon.
 *
 * A reply is posted only once its message is marked delivered, so its chat.message never comes before the
 * chat.updated that says its prompt was delivered: a Stop that comes while the message is still being typed (a fast
 * turn) is remembered, and its check runs once the delivery is recorded. Checks of one agent run one at a time, so
 * two Stops in a row, or a Stop during the catch-up, never post one reply twice.
 */
export class ReplyWatch {
  private readonly checks = new KeyedQueue();
  /** Messages being typed when a Stop came, with the turn that Stop ended and the time since it came. */
  private readonly stopsWhileTyping = new Map<string, { ended: EndedTurn; times: StepTimes }>();
  private closed = false;

  constructor(private readonly deps: ReplyWatchDeps) {}

  /** A message starts being typed into the agent, with the exact text. */
  started(agent: string, messageId: string, prompt: string): void {
    this.deps.store.add(agent, messageId, prompt, this.deps.clock.now(), MAX_AWAITING_PER_AGENT);
  }

  /** Called once the message's delivered state is published: from now on its reply can be posted. */
  delivered(agent: string, messageId: string): void {
    if (!this.deps.store.markDelivered(messageId)) return;
    const stop = this.stopsWhileTyping.get(messageId);
    if (stop === undefined) return;
    this.stopsWhileTyping.delete(messageId);
    // The Stop waited for the delivery to be recorded.
    stop.times.lap('typing');
    void this.check(agent, stop.ended, stop.times);
  }

  failed(_agent: string, messageId: string): void {
    this.deps.store.remove(messageId);
    this.stopsWhileTyping.delete(messageId);
  }

  /** Claude's SessionStart hook names the transcript before any turn, so a Stop that finds no daemon loses nothing. */
  sessionStarted(agent: string, payload: Record<string, unknown>): void {
    this.notePath(agent, payload);
  }

  onStop(agent: string, payload: Record<string, unknown>): Promise<void> {
    const times = new StepTimes();
    this.notePath(agent, payload);
    // Without a turn's id the Stop cannot say which turn ended, and a message typed meanwhile may have begun the last.
    // Claude names it prompt_id, Codex turn_id; each transcript reader files prompts under the same id.
    const id = [payload.prompt_id, payload.turn_id].find((v) => typeof v === 'string');
    // Wall time, not the daemon's clock: it is compared with the times the CLI wrote into its transcript.
    const ended: EndedTurn = id !== undefined ? { promptId: id, stoppedAt: Date.now() } : 'last';
    if (ended !== 'last') {
      for (const a of this.deps.store.awaiting(agent))
        if (!a.delivered) this.stopsWhileTyping.set(a.messageId, { ended, times });
      // Only a named turn: "the last" looked at later could be a turn begun since, still running.
      for (const ms of STOP_LOOKS_AGAIN_MS) setTimeout(() => this.lookAgain(agent, ended), ms).unref();
    }
    return this.check(agent, ended, times);
  }

  /** The Stop's check once more, while a delivered prompt still waits (a check that finds it settled posts nothing). */
  private lookAgain(agent: string, ended: EndedTurn): void {
    if (!this.closed && this.deps.store.awaiting(agent).some((a) => a.delivered)) void this.check(agent, ended);
  }

  /**
   * The agent's screen went still: a turn may have ended without a Stop hook (Codex sends none for a turn its provider
   * refused, Claude none for an interrupted one). Only turns whose end the transcript records count as ended.
   */
  wentIdle(agent: string): void {
    if (this.deps.store.awaiting(agent).some((a) => a.delivered)) void this.check(agent, 'none');
  }

  /**
   * At start-up: messages that were being typed when the daemon stopped were failed and wait for nothing; every other
   * agent's waiting prompts are checked against its transcript, where only turns whose end is recorded count as ended.
   */
  async catchUp(): Promise<void> {
    this.deps.store.removeUndelivered();
    const checks: Promise<void>[] = [];
    for (const agent of this.deps.store.agentsAwaiting()) {
      if (this.deps.exists(agent)) checks.push(this.check(agent, 'none'));
      else this.deps.store.forget(agent);
    }
    await Promise.all(checks);
  }

  /** A stopped or removed agent's turns in flight died with it. */
  agentGone(agent: string): void {
    this.deps.store.forget(agent);
  }

  /** For shutdown: checks not begun are left for the next start's catch-up; the running ones finish. */
  async close(): Promise<void> {
    this.closed = true;
    await this.checks.onIdle();
  }

  private notePath(agent: string, payload: Record<string, unknown>): void {
    if (typeof payload.transcript_path === 'string') this.deps.store.setPath(agent, payload.transcript_path);
  }

  private check(agent: string, ended: EndedTurn, times = new StepTimes()): Promise<void> {
    return this.checks
      .run(agent, () => this.settle(agent, ended, times))
      .catch((err) => this.deps.logger.warn({ agent, err: (err as Error).message }, 'reply capture failed'));
  }

  /** A turn that called leo_chat_post, yet nothing it posted is in the thread: the call failed. */
  private postFailed(
    agent: string,
    messageId: string,
    result: CaptureResult,
  ): result is { kind: 'posted'; text: string } {
    if (result.kind !== 'posted' || !result.text || this.deps.postedAfter(agent, messageId)) return false;
    this.deps.logger.info({ agent }, "the turn's leo_chat_post is not in the thread; posting its closing words");
    return true;
  }

  /** `times` runs from the Stop (or whatever asked for the check); a posted reply logs its steps at debug level. */
  private async settle(agent: string, ended: EndedTurn, times: StepTimes): Promise<void> {
    const { store, logger } = this.deps;
    if (this.closed) return;
    // Behind the agent's earlier checks.
    times.lap('queued');
    const { path, settled } = store.transcript(agent);
    const awaiting = store.awaiting(agent).filter((a) => a.delivered);
    if (!path || !awaiting.length) return;
    const results = await this.deps.capture({
      transcript: path,
      format: this.deps.format(agent),
      prompts: awaiting.map((a) => ({ prompt: a.prompt, since: a.since - SINCE_SLACK_MS })),
      ...(settled ? { after: settled } : {}),
      ended,
    });
    times.lap('capture');
    const now = this.deps.clock.now();
    awaiting.forEach((a, i) => {
      const { result, at } = results[i]!;
      if (result.kind === 'pending') return;
      if (result.kind === 'not_found') {
        if (now - a.since > REPLY_WAIT_MS && store.remove(a.messageId))
          logger.debug({ agent, message: a.messageId }, 'no turn for the message after 30 minutes; no reply');
        return;
      }
      // Settled: the wait ends, the turn is marked taken and the reply posted in one commit, so none is posted twice.
      store.atomically(() => {
        if (!store.remove(a.messageId)) return;
        if (at) store.setSettled(agent, at);
        if (result.kind === 'failed') return this.deps.unanswered(agent, a.messageId, { failure: result });
        if (result.kind === 'none' && result.reason === 'interrupted')
          return this.deps.unanswered(agent, a.messageId, 'interrupted');
        const text = result.kind === 'reply' || this.postFailed(agent, a.messageId, result) ? result.text : '';
        if (text) {
          this.deps.post(agent, text, a.messageId);
          times.lap('post');
          logger.debug({ agent, message: a.messageId, ms: times.ms }, 'reply steps');
        } else logger.debug({ agent, message: a.messageId, reason: reasonOf(result) }, 'no reply to post');
      });
    });
  }
}

const reasonOf = (r: CaptureResult) => (r.kind === 'none' ? r.reason : r.kind);
