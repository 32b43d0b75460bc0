import { answerSummaryLine } from '../../../wire/ask-answer.js';
import type { Message } from '../../../wire/message.js';
import { showBidiControls } from '../../../wire/visible-text.js';

const REASONS: Record<string, string> = {
  timeout: 'Timed out',
  withdrawn: 'Withdrawn by the agent',
  agent_gone: 'The agent went away',
  dismissed: 'Dismissed',
};

const ANSWERED: Record<string, string> = {
  allow: 'Allowed from chat',
  allow_session: 'Allowed from chat for this session',
};

/**
 * The answer and where it came from, or why the card closed unanswered (this device's own late answer is said by
 * AnswerStatus).
 */
export function Settled({ m }: { m: Message }) {
  if (m.state === 'expired') return <p class="settled">{REASONS[m.closed_reason ?? ''] ?? 'Closed'}</p>;
  const a = m.answer;
  if (!a) return <p class="settled">Answered</p>;
  if (m.kind === 'permission' && a.values[0] === 'terminal') return <p class="settled">Answered in the terminal</p>;
  if (m.kind === 'permission')
    return (
      <p class="settled">
        {ANSWERED[a.values[0] ?? ''] ?? 'Denied from chat'}
        {a.text && (
          <>
            : <strong>{showBidiControls(a.text)}</strong>
          </>
        )}
      </p>
    );
  const labelOf = (v: string, opts?: readonly { value: string; label: string }[]) =>
    opts?.find((o) => o.value === v)?.label ?? v;
  let what: string;
  if (a.answers && m.input?.type === 'questions') {
    const qs = m.input.questions;
    what = qs
      .map((q) => {
        const qa = a.answers?.[q.id];
        const parts = [...(qa?.values ?? []).map((v) => labelOf(v, q.options)), ...(qa?.text ? [qa.text] : [])];
        return `${q.header}: ${parts.join(', ')}`;
      })
      .join(' · ');
  } else {
    what = m.input && m.input.type !== 'questions' ? answerSummaryLine(m.input, a) : a.values.join(', ');
  }
  return (
    <p class="settled">
      Answered from chat: <strong>{showBidiControls(what) || '(no selection)'}</strong>
    </p>
  );
}
