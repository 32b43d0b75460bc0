import type { Message } from '../../wire/message.js';

/**
 * A thread's messages as a list sorted by id (ULIDs sort in the order the daemon stored them). Pure: every change
 * makes a new array, which is what a signal needs. A 10 000-message thread takes live events at hundreds a second, so
 * a message finds its place by binary search instead of a sort.
 */

/** The index of `id`, or where it would go (the first message with a larger id). */
export function indexOf(list: readonly Message[], id: string): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (list[mid]!.id < id) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * Whether `incoming` is an older copy of a card already settled: a card settles once (open → answered or expired)
 * and never reopens, but a page requested before its settlement can land after the live event that settled it.
 */
const reopens = (held: Message, incoming: Message): boolean => held.state !== 'open' && incoming.state === 'open';

/** Inserts or replaces by id, keeping the order by id; a settled card is not replaced by an older, open copy. */
export function upsert(list: readonly Message[], m: Message): Message[] {
  const i = indexOf(list, m.id);
  const held = list[i];
  if (held?.id === m.id && reopens(held, m)) return list.slice();
  const next = list.slice();
  if (held?.id === m.id) next[i] = m;
  else next.splice(i, 0, m);
  return next;
}

/** Merges a page (sorted by id) into the list: a page wholly before or after it is a concat, else one by one. */
export function merge(list: readonly Message[], page: readonly Message[]): Message[] {
  if (page.length === 0) return list.slice();
  if (list.length === 0) return page.slice();
  if (page.at(-1)!.id < list[0]!.id) return [...page, ...list];
  if (page[0]!.id > list.at(-1)!.id) return [...list, ...page];
  return page.reduce(upsert, list as Message[]);
}

/**
 * The daemon's newest page into a window that holds a thread's last known page (and live messages since): what is
 * older than the page goes, since it may not reach back to it (a gap would show as one thread); what it holds is
 * replaced; newer live messages stay.
 */
export function overLastKnown(list: readonly Message[], page: readonly Message[]): Message[] {
  const first = page[0]?.id;
  return first === undefined
    ? []
    : merge(
        list.filter((m) => m.id >= first),
        page,
      );
}

/** What a live chat event does to a message: it arrived, or it changed. */
export type LiveChange = 'chat.message' | 'chat.updated';

/**
 * A live message in the loaded window, by id, if it belongs there: a window short of the live end (`live` false) only
 * takes new ones within it, which its next page brings otherwise, and a changed message older than the window stays
 * out too: its page brings it.
 */
export function placeLive(list: readonly Message[], live: boolean, change: LiveChange, m: Message): readonly Message[] {
  const inWindow = live || (list.length > 0 && m.id <= list.at(-1)!.id);
  const beforeWindow = change === 'chat.updated' && list.length > 0 && m.id < list[0]!.id;
  return inWindow && !beforeWindow ? merge(list, [m]) : list;
}
