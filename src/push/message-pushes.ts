import { displayName } from '../agents/resolve.js';
import type { EventBus } from '../events/bus.js';
import type { EventData } from '../wire/events.js';
import type { AgentNeedsInputEvent } from '../wire/fleet.js';
import type { Message } from '../wire/message.js';
import { needsInputPush, pushForMessage, type PushRecord } from './push-payload.js';

/**
 * What reaches the owner's devices: each message stored in a thread that the policy pushes, and each attention push
 * (a needs_input alert raised, a turn that could not answer: the agent can do nothing more until its owner acts).
 */
export class MessagePushes {
  constructor(private readonly dispatcher: { dispatch(record: PushRecord): void; idle(): Promise<void> }) {}

  /**
   * Each needs_input alert raised is the agent's own attention push (NeedsInputAlerts publishes only changes). On a
   * hub, a followed host's new messages arrive only as events (its devices pair with the hub, which alone pushes), so
   * a relayed chat.message is pushed as a message stored here would be; this daemon's own are pushed where stored.
   */
  follow(bus: EventBus, enabled: () => boolean): void {
    bus.subscribe({
      deliver: (event) => {
        if (!enabled()) return;
        if (event.type === 'agent_needs_input') {
          const { agent, needs_input } = event.data as AgentNeedsInputEvent;
          if (needs_input) this.attention(agent, needs_input.text);
        } else if (event.type === 'chat.message') {
          const relayed = event.data as EventData<'chat.message'>;
          if (relayed.host !== undefined) this.message(relayed.message);
        }
      },
    });
  }

  message(message: Message): void {
    const record = pushForMessage(message, displayName(message.agent));
    if (record) this.dispatcher.dispatch(record);
  }

  /** Resolves once the pushes already dispatched are sent. */
  idle(): Promise<void> {
    return this.dispatcher.idle();
  }

  /** The attention push (docs/DECISIONS.md, issue 27). */
  attention(agent: string, text: string): void {
    this.dispatcher.dispatch(needsInputPush(agent, displayName(agent), text));
  }
}
