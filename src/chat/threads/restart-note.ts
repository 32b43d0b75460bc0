import { formatLocal } from '../../core/local-time.js';
import type { Message } from '../../wire/message.js';

/** How much of a message the note about its late typing quotes, so a person can tell which one it was. */
const QUOTE_CHARS = 60;

/**
 * The note a message from the outbox gets once it is typed after a restart: the thread says it went in late, and
 * when, for every client (a system note is in the spec; a new field would reach only clients that know it). Times are
 * the daemon's local ones, as a late reminder's; the typing time drops the date when it is the sending day.
 */
export function typedAfterRestartNote(m: Message, typedAt: number): string {
  const line = m.text.trim().split('\n')[0]!.trim();
  const chars = [...line];
  const quote = chars.length > QUOTE_CHARS ? `${chars.slice(0, QUOTE_CHARS).join('')}…` : line;
  const what = quote ? `your message “${quote}”` : m.kind === 'voice' ? 'your voice note' : 'your message';
  const sent = formatLocal(Date.parse(m.ts));
  const typed = formatLocal(typedAt);
  // "Fri 4 Dec 2026 21:20 UTC": the first four words are the day.
  const day = (s: string) => s.split(' ').slice(0, 4).join(' ');
  const when = day(sent) === day(typed) ? `at ${typed.split(' ').slice(4).join(' ')}` : `on ${typed}`;
  return `Leo restarted before ${what} reached ${m.agent} (sent ${sent}); it was typed in after the restart, ${when}.`;
}
