import { threadOrder } from '../../chat/threads/thread-order.js';
import type { Message, Thread } from '../../wire/message.js';
import { qualifyMessage, qualifyThread } from '../relay/qualify.js';

/**
 * A hub's lists across machines (issue 31): its own items and each host's, renamed to `name@host` as the relay names
 * them, in the order the single-daemon route gives. Pure: the fetching is host-lists.ts.
 */

/** What one host answered (or, when it did not answer in time, what the hub last heard from it). */
export interface HostPart<T> {
  host: string;
  items: T[];
}

/** The inbox: every open card, newest first (ids are time-ordered, so machines interleave by when they asked). */
export function mergeOpen(own: Message[], parts: HostPart<Message>[]): Message[] {
  return [...own, ...renamed(parts, qualifyMessage)].sort((a, b) => b.id.localeCompare(a.id));
}

/** The thread list: the hub's assistant first, then the newest conversation first, whatever machine it is on. */
export function mergeThreads(own: Thread[], parts: HostPart<Thread>[]): Thread[] {
  return [...own, ...renamed(parts, qualifyThread)].sort(threadOrder);
}

const renamed = <T>(parts: HostPart<T>[], rename: (item: T, host: string) => T): T[] =>
  parts.flatMap((p) => p.items.map((item) => rename(item, p.host)));
