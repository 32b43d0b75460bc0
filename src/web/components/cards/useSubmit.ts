import { signal } from '@preact/signals';
import { useState } from 'preact/hooks';
import type { PromptConflict } from '../../../chat/permissions/permission-prompt.js';
import { ApiError } from '../../api/client.js';
import type { AnswerBody } from '../../../chat/asks/ask-answer.js';
import type { Message } from '../../../chat/threads/message.js';
import { api, onUnpaired } from '../../stores/auth.js';
import { checkAnswer, settle } from '../../stores/inbox.js';

/** What the card says when this device's answer lost to one given first (the daemon's 409 code). */
const LOST: Partial<Record<PromptConflict, string>> = {
  answered_elsewhere: 'Answered elsewhere first: your answer was not used',
  answered_in_terminal: 'Answered in the terminal first: your answer was not used',
};

/**
 * Cards this device answered too late, with the sentence that says so. Kept apart from the card's own state: the
 * winner's answer settles the card, which then shows its settlement instead of the form that held the error.
 */
export const lostAnswers = signal<Record<string, string>>({});

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
      const lost = err instanceof ApiError && err.status === 409 ? LOST[err.code as PromptConflict] : undefined;
      if (lost) lostAnswers.value = { ...lostAnswers.value, [m.id]: lost };
      if (!(await onUnpaired(err))) setError(lost ?? (err instanceof Error ? err.message : String(err)));
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
