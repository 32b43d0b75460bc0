import { useState } from 'preact/hooks';
import type { QuestionAnswerBody } from '../../../wire/ask-answer.js';
import type { QuestionsInput } from '../../../wire/questions.js';
import type { Message } from '../../../wire/message.js';
import { useSubmit } from './useSubmit.js';
import { showBidiControls } from '../../../wire/visible-text.js';

/** Claude's AskUserQuestion: every question at once, single or multi select, each with "Other" text; or dismiss. */
export function QuestionsCard({ m, input }: { m: Message; input: QuestionsInput }) {
  const { error, busy, answer, dismiss } = useSubmit(m);
  const [given, setGiven] = useState<Record<string, QuestionAnswerBody>>({});
  const of = (id: string) => given[id] ?? { values: [], text: '' };
  const set = (id: string, a: QuestionAnswerBody) => setGiven({ ...given, [id]: a });
  return (
    <form
      class="card-form"
      onSubmit={(e) => {
        e.preventDefault();
        answer({ answers: Object.fromEntries(input.questions.map((q) => [q.id, of(q.id)])) });
      }}
    >
      {input.questions.map((q) => {
        const a = of(q.id);
        const values = a.values ?? [];
        return (
          <fieldset key={q.id} class="choices qa">
            <legend>
              <span class="tag">{showBidiControls(q.header)}</span> {showBidiControls(q.question)}
            </legend>
            {q.options.map((o) => (
              <label key={o.value} class="choice">
                <input
                  type={q.multi ? 'checkbox' : 'radio'}
                  name={`q-${m.id}-${q.id}`}
                  checked={values.includes(o.value)}
                  onChange={(e) => {
                    const on = e.currentTarget.checked;
                    const next = q.multi
                      ? on
                        ? [...values, o.value]
                        : values.filter((v) => v !== o.value)
                      : [o.value];
                    // A single-select answer is an option or "Other" text, not both.
                    set(q.id, { values: next, text: q.multi ? a.text : '' });
                  }}
                />
                <span>
                  {showBidiControls(o.label)}
                  {o.description && <small>{showBidiControls(o.description)}</small>}
                </span>
              </label>
            ))}
            <input
              type="text"
              aria-label={`Other (${q.header})`}
              placeholder="Other"
              value={a.text ?? ''}
              onInput={(e) => {
                const text = e.currentTarget.value;
                set(q.id, { values: q.multi || text === '' ? values : [], text });
              }}
            />
          </fieldset>
        );
      })}
      <div class="choices buttons">
        <button type="submit" class="primary" disabled={busy}>
          Send answers
        </button>
        <button type="button" disabled={busy} onClick={dismiss}>
          Dismiss
        </button>
      </div>
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
    </form>
  );
}
