import { ChatStore } from '../../src/chat/threads/chat-store.js';
import type { TestDaemon } from './daemon.js';

/**
 * Writes `count` messages into an agent's thread straight into the test daemon's chat.db (one transaction: 10 000 in
 * well under a second, where the agent route would take minutes), publishing nothing: what a long-lived thread
 * looks like when the app opens it. Heights vary as a real thread's do: one-liners, several lines, markdown with a
 * code block, the owner's messages among the agent's. Message n's text starts with `${prefix} n`, for finding it.
 */
export function seedThread(t: TestDaemon, agent: string, count: number, prefix = 'message'): string[] {
  const store = new ChatStore(t.daemon.db, t.clock);
  return store.atomically(() => {
    const ids: string[] = [];
    for (let n = 1; n <= count; n++) {
      const owner = n % 5 === 0;
      const text =
        n % 11 === 0
          ? `${prefix} ${n}: **the build** passed.\n\n\`\`\`\nnpm test -- --filter ${n}\n\`\`\`\n\n- one\n- two`
          : n % 3 === 0
            ? `${prefix} ${n}\nwith a second line\nand a third, long enough to wrap on a phone's narrow screen at least once`
            : `${prefix} ${n}`;
      const m = store.insert({
        agent,
        direction: owner ? 'in' : 'out',
        kind: 'text',
        text,
        state: 'delivered',
      });
      ids.push(m.id);
    }
    return ids;
  });
}
