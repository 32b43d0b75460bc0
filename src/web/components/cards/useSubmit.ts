import { useState } from 'preact/hooks';
import type { AnswerBody } from '../../../chat/asks/ask-answer.js';
import type { Message } from '../../../chat/threads/message.js';
import { api, onUnpaired } from '../../stores/auth.js';
import { checkAnswer, settle } from '../../stores/inbox.js';

/**
 * Answering or dismissing one card: the shared validator first (no request for an answer the daemon would refuse),
 * then the POST; the daemon's own refusal is shown as it said it. Each card holds its own state, so several stack.
 */
export function useSubmit(m: Message) {
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const run = async (job: () => Promise<Message>) => {
    setBusy(true);
    setError(null);
    try {
      settle(await job());
    } catch (err) {
      if (!(await onUnpaired(err))) setError(err instanceof Error ? err.message : String(err));
    } finally {
      setBusy(false);
    }
  };
  return {
    error,
    busy,
    answer(body: AnswerBody) {
      const refused = checkAnswer(m, body);
      if (refused) return setError(refused);
      void run(() => api.answer(m.agent, m.id, body));
    },
    dismiss() {
      void run(() => api.dismiss(m.agent, m.id));
    },
  };
}
