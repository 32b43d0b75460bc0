import type { Message } from '../../../wire/message.js';
import { answerNotes, cancelAnswer, queuedAnswers, type QueuedAnswer } from '../../stores/answers.js';

function what(m: Message, a: QueuedAnswer): string {
  if (!a.body) return 'Dismiss';
  if (m.kind === 'permission') return a.body.values?.[0] === 'allow' ? 'Allow' : 'Deny';
  return 'Your answer';
}

/**
 * What became of this device's answer when it did not simply settle the card: waiting to be sent (offline, or the
 * daemon down), or sent but not used because the card was settled elsewhere first, or refused.
 */
export function AnswerStatus({ m }: { m: Message }) {
  const queued = queuedAnswers.value.get(m.id);
  if (queued)
    return (
      <p class="answer-status" role="status" data-answer="queued">
        <span>Not sent yet: {what(m, queued)} goes when Leo can be reached again.</span>
        <button type="button" onClick={() => cancelAnswer(m.id)}>
          Cancel
        </button>
      </p>
    );
  const n = answerNotes.value.get(m.id);
  if (!n) return null;
  const text =
    n.kind === 'refused'
      ? `Not sent: ${n.error}`
      : n.code === 'answered_in_terminal'
        ? 'Answered in the terminal before your answer arrived: yours was not used.'
        : m.state === 'expired' && m.answer === undefined
          ? 'Closed before your answer arrived: it was not used.'
          : 'Answered elsewhere before your answer arrived: yours was not used.';
  return (
    <p class="answer-status" role="status" data-answer={n.kind}>
      <span>{text}</span>
    </p>
  );
}
