import type { Thread } from '../../wire/message.js';

/** The thread list's order: the pinned thread first, then the newest message first, then by name. */
export const threadOrder = (a: Thread, b: Thread): number =>
  Number(b.pinned) - Number(a.pinned) ||
  (b.last_message?.id ?? '').localeCompare(a.last_message?.id ?? '') ||
  a.agent.localeCompare(b.agent);
