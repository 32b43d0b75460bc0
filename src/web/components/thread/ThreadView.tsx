import { useEffect, useLayoutEffect, useRef } from 'preact/hooks';
import { agents } from '../../stores/fleet.js';
import { loadingOlder, loadOlder, messages, older, openAgent, openThread, threadError } from '../../stores/thread.js';
import { ConnectionBadge } from '../ConnectionBadge.js';
import { MessageView } from './MessageView.js';
import { Composer } from '../composer/Composer.js';
import { OutboxItems } from '../composer/OutboxItems.js';

/** Near enough to an edge of the list to count as at it, in px. */
const EDGE = 120;

/**
 * One agent's thread: the newest page at the bottom, older pages loaded when scrolled to the top with the reading
 * position kept, and live messages followed while the reader is at the bottom.
 */
export function ThreadView({ agent }: { agent: string }) {
  const list = useRef<HTMLOListElement>(null);
  // Distance from the bottom before a render, so prepending older messages keeps what is on screen where it was.
  const fromBottom = useRef<number | null>(null);
  useEffect(() => {
    void openThread(agent);
    // Only if no other thread opened meanwhile: a quick switch can run this cleanup after the next thread's open.
    return () => void (openAgent.peek() === agent && openThread(null));
  }, [agent]);

  const shown = messages.value;
  useLayoutEffect(() => {
    const el = list.current;
    if (!el) return;
    const kept = fromBottom.current;
    el.scrollTop = kept === null ? el.scrollHeight : el.scrollHeight - el.clientHeight - kept;
  }, [shown]);

  const onScroll = () => {
    const el = list.current!;
    const distance = el.scrollHeight - el.clientHeight - el.scrollTop;
    // At the bottom, follow new messages; anywhere else, keep the position.
    fromBottom.current = distance < EDGE ? null : distance;
    if (el.scrollTop < EDGE && older.value && !loadingOlder.value) {
      fromBottom.current = distance;
      void loadOlder();
    }
  };

  const a = agents.value.get(agent);
  const ready = openAgent.value === agent;
  return (
    <section class="thread" data-screen="thread" data-thread={agent}>
      <header class="bar">
        <a class="back" href="#/" aria-label="Back to the fleet">
          ‹
        </a>
        <h1>{a?.display_name ?? agent}</h1>
        <ConnectionBadge />
      </header>
      <ol class="messages" ref={list} onScroll={onScroll} aria-live="polite" aria-label={`Messages with ${agent}`}>
        {older.value && (
          <li class="msg-more muted" data-more="older">
            {loadingOlder.value ? 'Loading…' : 'Older messages'}
          </li>
        )}
        {ready && shown.length === 0 && !threadError.value && <li class="empty">No messages yet.</li>}
        {threadError.value && <li class="empty error">{threadError.value}</li>}
        {shown.map((m) => (
          <MessageView key={m.id} m={m} />
        ))}
        <OutboxItems agent={agent} />
      </ol>
      <Composer agent={agent} />
    </section>
  );
}
