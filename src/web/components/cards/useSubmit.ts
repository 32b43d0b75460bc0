import { useState } from 'preact/hooks';
import type { AnswerBody } from '../../../wire/ask-answer.js';
import type { Message } from '../../../wire/message.js';
import { queuedAnswers, submitAnswer } from '../../stores/answers.js';
import { checkAnswer } from '../../stores/inbox.js';

/**
 * Answering or dismissing one card: the shared validator first (no request for an answer the daemon would refuse),
 * then the answer outbox (sent now, or queued while the daemon cannot be reached); the daemon's own refusal is shown
 * as it said it. Each card holds its own state, so several stack; a queued answer keeps the card busy.
 */
export function useSubmit(m: Message) {
  const [error, setError] = useState<string | null>(null);
  const [sending, setSending] = useState(false);
  const run = async (body: AnswerBody | null) => {
    setSending(true);
    setError(null);
    try {
      await submitAnswer(m, body);
    } catch (err) {
      setError(err instanceof Error ? err.message : String(err));
    } finally {
      setSending(false);
    }
  };
  return {
    error,
    busy: sending || queuedAnswers.value.has(m.id),
    answer(body: AnswerBody) {
      const refused = checkAnswer(m, body);
      if (refused) return setError(refused);
      void run(body);
    },
    dismiss() {
      void run(null);
    },
  };
}
