import type { EventBus } from '../../events/bus.js';
import type { ChatStore } from './chat-store.js';
import type { Message } from '../../wire/message.js';

/**
 * System notes in an agent's thread ("Starting…", why a message failed, what the agent's terminal is asking). Built
 * before the agents domain, which has things to say in threads (a harness that keeps exiting, a dialog it waits on)
 * but must not depend on the chat service built over it. Notes are never pushed and never delivered.
 */
export class ThreadNotes {
  constructor(
    private readonly store: ChatStore,
    private readonly bus: EventBus,
  ) {}

  note(agent: string, text: string): Message {
    const message = this.store.insert({ agent, direction: 'out', kind: 'system', text, state: '' });
    this.bus.publish('chat.message', { message });
    return message;
  }
}
