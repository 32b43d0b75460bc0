import { useState } from 'preact/hooks';
import type { AskInput } from '../../../wire/ask-input.js';
import type { Message } from '../../../wire/message.js';
import { useSubmit } from './useSubmit.js';
import { showBidiControls } from '../../../wire/visible-text.js';

/** An agent's ask: buttons, radio, checkboxes (min/max) or text, with optional free text and placeholder. */
export function AskCard({ m, input }: { m: Message; input: AskInput }) {
  const { error, busy, answer } = useSubmit(m);
  const [picked, setPicked] = useState<string[]>([]);
  const [text, setText] = useState('');
  const options = input.options ?? [];
  const name = `ask-${m.id}`;
  const toggle = (v: string, on: boolean) =>
    setPicked(input.type === 'checkboxes' ? (on ? [...picked, v] : picked.filter((p) => p !== v)) : on ? [v] : []);
  const send = (values: string[] = picked) => answer({ values, text });
  const showText = input.type === 'text' || input.allow_text === true;
  return (
    <form
      class="card-form"
      onSubmit={(e) => {
        e.preventDefault();
        send();
      }}
    >
      {input.type === 'buttons' ? (
        <div class="choices buttons">
          {options.map((o) => (
            <button
              type="button"
              key={o.value}
              disabled={busy}
              title={o.description && showBidiControls(o.description)}
              onClick={() => send([o.value])}
            >
              {showBidiControls(o.label)}
            </button>
          ))}
        </div>
      ) : (
        input.type !== 'text' && (
          <fieldset class="choices">
            <legend class="sr-only">Options</legend>
            {input.type === 'checkboxes' && choiceHint(input.min, input.max, options.length) && (
              <p class="hint">{choiceHint(input.min, input.max, options.length)}</p>
            )}
            {options.map((o) => (
              <label key={o.value} class="choice">
                <input
                  type={input.type === 'radio' ? 'radio' : 'checkbox'}
                  name={name}
                  value={o.value}
                  checked={picked.includes(o.value)}
                  onChange={(e) => toggle(o.value, e.currentTarget.checked)}
                />
                <span>
                  {showBidiControls(o.label)}
                  {o.description && <small>{showBidiControls(o.description)}</small>}
                </span>
              </label>
            ))}
          </fieldset>
        )
      )}
      {showText && (
        <textarea
          aria-label={input.type === 'text' ? 'Your answer' : 'Or write an answer'}
          placeholder={input.placeholder ?? (input.type === 'text' ? 'Your answer' : 'Or write an answer')}
          value={text}
          rows={2}
          onInput={(e) => setText(e.currentTarget.value)}
        />
      )}
      {(input.type !== 'buttons' || showText) && (
        <button type="submit" class="primary" disabled={busy}>
          Send answer
        </button>
      )}
      {error && (
        <p class="error" role="alert">
          {error}
        </p>
      )}
    </form>
  );
}

/** "Choose at least 1, at most 2": only the bounds that rule something out (at least 0, at most all say nothing). */
function choiceHint(min: number | undefined, max: number | undefined, options: number): string {
  const bounds = [
    ...(min !== undefined && min > 0 ? [`at least ${min}`] : []),
    ...(max !== undefined && max < options ? [`at most ${max}`] : []),
  ];
  return bounds.length ? `Choose ${bounds.join(', ')}` : '';
}
