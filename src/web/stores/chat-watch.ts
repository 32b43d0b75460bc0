import type { FleetEvent } from '../api/events.js';
import type { Message } from '../../wire/message.js';

type Watcher = (m: Message) => void;
const watchers = new Set<Watcher>();

/**
 * Every new message the event stream brings, in any thread, to `fn` until the returned function is called: for a
 * screen waiting on an agent's answer outside its thread (the changes view's suggested commit message).
 */
export function watchMessages(fn: Watcher): () => void {
  watchers.add(fn);
  return () => void watchers.delete(fn);
}

export function applyWatchEvent(e: FleetEvent): void {
  if (e.type !== 'chat.message') return;
  for (const w of watchers) w(e.data.message);
}
