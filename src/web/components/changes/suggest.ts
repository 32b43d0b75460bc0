import { effect } from '@preact/signals';
import type { Message } from '../../../wire/message.js';
import { api, onUnpaired } from '../../stores/auth.js';
import { watchMessages } from '../../stores/chat-watch.js';
import { connection } from '../../stores/connection.js';
import { enqueue } from '../../stores/outbox.js';

/** What the owner asks the agent, in its thread like anything typed in the composer. */
export function suggestRequest(paths: readonly string[]): string {
  const which = paths.length ? `these files: ${paths.join(', ')}` : 'all the changed files in the workspace';
  return `Please suggest a git commit message for ${which}. Reply with the commit message only: a short subject line, then a body if it needs one.`;
}

/** An answer wrapped whole in one code fence (as models like to) is the fence's content. */
export function commitMessageOf(reply: string): string {
  const fenced = /^\s*```[^\n]*\n([\s\S]*?)\n?```\s*$/.exec(reply);
  return (fenced ? fenced[1]! : reply).trim();
}

/**
 * Asks `agent` for a commit message through the outbox (so it is sent, kept and retried as the composer's messages
 * are) and hands `onReply` the agent's next message in that thread after the request. The request is known by its
 * client id once the daemon stored it; after a reconnect the thread's last page is read for what the stream missed.
 * Returns the function that stops waiting.
 */
export function askForCommitMessage(
  agent: string,
  paths: readonly string[],
  onReply: (text: string) => void,
): () => void {
  let clientId: string | null = null;
  let requestId: string | null = null;
  let stopped = false;
  const stop = () => {
    stopped = true;
    unwatch();
    unlive();
  };
  const seen = (m: Message) => {
    if (stopped || m.agent !== agent) return;
    if (clientId !== null && m.client_id === clientId) requestId = m.id;
    else if (requestId !== null && m.id > requestId && m.direction === 'out' && m.kind !== 'system') {
      stop();
      onReply(commitMessageOf(m.text));
    }
  };
  const unwatch = watchMessages(seen);
  let first = true;
  const unlive = effect(() => {
    if (connection.value !== 'live') return;
    if (first) return void (first = false);
    api.messages(agent, { limit: 50 }).then(
      (page) => page.messages.forEach(seen),
      (err: unknown) => void onUnpaired(err),
    );
  });
  void enqueue(agent, suggestRequest(paths)).then((entry) => {
    clientId = entry.client_id;
  });
  return stop;
}
