/** How a chat message reads when typed into an agent (leo-chat.md, Delivery). Pure. */

/** How much of a task card a reply to it quotes; a reply to an ask quotes the whole question (leo-chat.md). */
export const CARD_TEXT_LIMIT = 1500;

export type ReplyContext =
  | { kind: 'task'; task: string; runId: string; at: string; text: string }
  | { kind: 'ask'; messageId: string; at: string; question: string; answer?: unknown };

function cutCard(text: string): string {
  const chars = [...text];
  return chars.length <= CARD_TEXT_LIMIT ? text : `${chars.slice(0, CARD_TEXT_LIMIT).join('')}…`;
}

/**
 * `sender` is the message's sender field (`client:<name>` for an API client's post): such a message says so in its
 * first line, `[Leo Chat from client:<name>]`, so the agent never takes a dashboard's words for its owner's. The
 * owner's own messages (operator, devices) keep the plain `[Leo Chat]`.
 */
export function formatDelivery(
  text: string,
  attachmentPaths: readonly string[],
  reply?: ReplyContext,
  sender?: string,
): string {
  const lines = [`[Leo Chat${sender ? ` from ${sender}` : ''}] ${text}`];
  if (attachmentPaths.length) lines.push(`Attachments: ${attachmentPaths.join(', ')}`);
  if (reply?.kind === 'task')
    lines.push(`In reply to task ${reply.task} run ${reply.runId} (${reply.at}): ${cutCard(reply.text)}`);
  if (reply?.kind === 'ask') {
    lines.push(`In reply to your leo_chat_ask ${reply.messageId} (${reply.at}): ${reply.question}`);
    if (reply.answer !== undefined) lines.push(`Answer: ${JSON.stringify(reply.answer)}`);
  }
  return lines.join('\n');
}
