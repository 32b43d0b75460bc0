import type { Clock } from '../core/clock.js';
import { rfc3339 } from '../core/time.js';
import type { EventBus } from '../events/bus.js';
import type { AgentMessage } from '../wire/fleet.js';

export const RECENT_MESSAGES_CAP = 50;
export const RECENT_MESSAGES_MAX_AGE_MS = 10 * 60_000;

/**
 * Who messaged whom, recently — never what was said. Oldest first, at most 50, nothing older than 10 minutes, so a
 * consumer connecting mid-conversation can seed the pairs it missed.
 */
export class RecentMessages {
  private entries: { from?: string; to: string; at: number }[] = [];

  constructor(private readonly clock: Clock) {}

  record(from: string | undefined, to: string): AgentMessage {
    const at = this.clock.now();
    this.entries.push({ ...(from ? { from } : {}), to, at });
    if (this.entries.length > RECENT_MESSAGES_CAP) this.entries.splice(0, this.entries.length - RECENT_MESSAGES_CAP);
    return { ...(from ? { from } : {}), to, at: rfc3339(at) };
  }

  list(): AgentMessage[] {
    const cutoff = this.clock.now() - RECENT_MESSAGES_MAX_AGE_MS;
    this.entries = this.entries.filter((e) => e.at >= cutoff);
    return this.entries.map((e) => ({ ...(e.from ? { from: e.from } : {}), to: e.to, at: rfc3339(e.at) }));
  }
}

/**
 * Tells the fleet that a message reached an agent: recent_messages and the agent_message event, the pair only. Every
 * message counts, whoever sent it: an agent's (`from` its name), an operator's or one sent through Leo Chat (a human:
 * no `from`, as the observability spec says, since Leo does not invent an identity).
 */
export function messageAnnouncer(recent: RecentMessages, bus: EventBus) {
  return (from: string | undefined, to: string): void => {
    const m = recent.record(from, to);
    bus.publish('agent_message', { ...(m.from ? { from: m.from } : {}), to: m.to });
  };
}

/**
 * An agent→agent (or operator) message's delivery: the addressee must exist, counts against its pending limit while
 * it is typed (chat's messages count there too), and a parked agent is woken for it.
 */
export function agentMessageDelivery(d: {
  agents: { get(name: string): unknown; wake(name: string): Promise<unknown> };
  pending: { admit(agent: string): () => void };
  deliverer: { deliver(agent: string, text: string): Promise<unknown> };
}) {
  return async (to: string, text: string): Promise<void> => {
    d.agents.get(to);
    const release = d.pending.admit(to);
    try {
      await d.agents.wake(to);
      await d.deliverer.deliver(to, text);
    } finally {
      release();
    }
  };
}
