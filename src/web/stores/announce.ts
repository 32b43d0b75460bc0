import { signal } from '@preact/signals';
import { showBidiControls } from '../../wire/visible-text.js';

/**
 * What the open thread's visually hidden live region says: the agent's name and the first words of a message that
 * just arrived. The list itself is not a live region (virtualized rows mount as the reader scrolls, and would be read
 * out), so only live arrivals are announced, at most one announcement a second: a burst becomes "<agent>, 12 new
 * messages: <the newest's first words>" instead of a queue a screen reader would read for minutes.
 */
export const announcement = signal('');

const GAP_MS = 1000;
const WORDS = 12;

let lastAt = 0;
let timer: ReturnType<typeof setTimeout> | null = null;
let queued: { who: string; text: string }[] = [];

export function firstWords(text: string): string {
  const words = text.trim().split(/\s+/).filter(Boolean);
  return words.slice(0, WORDS).join(' ') + (words.length > WORDS ? '…' : '');
}

function flush(): void {
  timer = null;
  const newest = queued.at(-1);
  if (!newest) return;
  // Read out as the thread draws it: a bidi control is said as its code point, never obeyed.
  const words = firstWords(showBidiControls(newest.text));
  announcement.value =
    queued.length === 1 ? `${newest.who}: ${words}` : `${newest.who}, ${queued.length} new messages: ${words}`;
  queued = [];
  lastAt = Date.now();
}

export function announce(who: string, text: string): void {
  queued.push({ who, text });
  if (timer) return;
  timer = setTimeout(flush, Math.max(0, lastAt + GAP_MS - Date.now()));
}

/** A thread closed or another opened: nothing of the last one is still to say. */
export function resetAnnouncements(): void {
  if (timer) clearTimeout(timer);
  timer = null;
  queued = [];
  announcement.value = '';
}
