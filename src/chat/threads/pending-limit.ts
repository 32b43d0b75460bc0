import { LeoError } from '../../core/leo-error.js';

/** How long a sender refused for a full queue is told to wait: a few deliveries' time. */
export const QUEUE_FULL_RETRY_AFTER_S = 30;

/**
 * Counts each agent's undelivered inbound messages (chat messages, agent→agent and operator messages) and refuses a
 * new one past chat.max_pending_messages, so a stopped or stuck agent cannot make the daemon hold an unbounded queue
 * in memory and in chat.db. Messages already accepted are never dropped: the count falls as they settle.
 */
export class PendingLimit {
  private readonly pending = new Map<string, number>();

  /** `max` is read at every admission, so a config reload applies to the next message. */
  constructor(private readonly max: () => number) {}

  /** Throws 429 queue_full when `agent` already has the maximum of undelivered messages waiting. */
  check(agent: string): void {
    const max = this.max();
    if (this.count(agent) >= max)
      throw new LeoError(
        429,
        `${agent} already has ${max} undelivered messages: wait for them to be delivered, then send again`,
        'queue_full',
        { agent, pending: this.count(agent), max },
        QUEUE_FULL_RETRY_AFTER_S,
      );
  }

  /** check(), then hold(): the release is called once the message is delivered or has failed. */
  admit(agent: string): () => void {
    this.check(agent);
    return this.hold(agent);
  }

  /**
   * Counts one more message for `agent` until the returned release is called (once, when it is delivered or has
   * failed). It refuses nothing: a message a restart left waiting joins the queue even when it is full.
   */
  hold(agent: string): () => void {
    this.pending.set(agent, this.count(agent) + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const left = this.count(agent) - 1;
      if (left > 0) this.pending.set(agent, left);
      else this.pending.delete(agent);
    };
  }

  count(agent: string): number {
    return this.pending.get(agent) ?? 0;
  }

  /** Agents with messages waiting, and how many each. */
  readout(): { max: number; agents: Map<string, number> } {
    return { max: this.max(), agents: new Map(this.pending) };
  }
}
