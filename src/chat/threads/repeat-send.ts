import type { Message } from '../../wire/message.js';

/** What a send asks to store: the fields a repeat under the same client_id must match. */
export interface SendRequest {
  text: string;
  sender?: string | undefined;
  reply_to?: string | undefined;
  attachments?: readonly string[] | undefined;
}

/**
 * Whether a send under a client_id already stored is a repeat of that message (a client retrying after a lost
 * answer) rather than a different message reusing the id: same text, sender, reply and attachments. Pure.
 */
export function isRepeatOf(stored: Message, send: SendRequest): boolean {
  const ids = (list: readonly string[]) => [...list].sort().join('\n');
  return (
    stored.text === send.text &&
    stored.sender === send.sender &&
    stored.reply_to === send.reply_to &&
    ids(stored.attachments.map((a) => a.id)) === ids(send.attachments ?? [])
  );
}
