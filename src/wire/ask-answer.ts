import { z } from 'zod';
import { charCount, mustBe, type AskInput } from './ask-input.js';

/**
 * Whether an answer fits its ask (spec: leo-chat.md, "Ask inputs"), and how an answer reads back to the agent. Pure.
 */

export const ASK_TEXT_MAX_CHARS = 4000;

const Values = z.array(z.string(mustBe('a string')), mustBe('an array of strings'));
const Text = z.string(mustBe('a string'));

/** One question's part of a questions-card answer body. */
export const QuestionAnswerBody = z.strictObject({ values: Values.optional(), text: Text.optional() });
export type QuestionAnswerBody = z.infer<typeof QuestionAnswerBody>;

/** POST /api/v1/chat/{agent}/messages/{id}/answer. answers is only for a questions card. */
export const AnswerBody = z.strictObject({
  values: Values.optional(),
  text: Text.optional(),
  answers: z.record(z.string(), QuestionAnswerBody, mustBe('an object keyed by question id')).optional(),
});
export type AnswerBody = z.infer<typeof AnswerBody>;

/** Message.answer as stored and served; answers appears only on a questions card answered from chat. */
export const Answer = z.object({
  values: z.array(z.string()),
  text: z.string(),
  answers: z.record(z.string(), z.object({ values: z.array(z.string()), text: z.string() })).optional(),
});
export type AskAnswer = z.infer<typeof Answer>;
/** One question's settled answer inside a questions card's answer. */
export type QuestionAnswer = NonNullable<AskAnswer['answers']>[string];

export type AnswerResult = { ok: true; answer: { values: string[]; text: string } } | { ok: false; error: string };

/**
 * Checks an answer against its ask and returns it as stored. Text is trimmed, as a questions card's is, so
 * whitespace alone never counts as an answer and an empty text field a client always sends is no text at all.
 */
export function validateAnswer(input: AskInput, body: AnswerBody): AnswerResult {
  if (body.answers !== undefined)
    return fail('answers: only a questions card takes per-question answers; answer this ask with values and text');
  const values = body.values ?? [];
  const text = (body.text ?? '').trim();
  const textLen = charCount(text);
  if (textLen > ASK_TEXT_MAX_CHARS)
    return fail(`text: ${textLen} characters exceed the limit of ${ASK_TEXT_MAX_CHARS}`);

  if (input.type === 'text') {
    if (values.length > 0) return fail(`values: a text ask takes no values (got ${values.length})`);
    if (text === '') return fail('text: must not be empty');
    return ok(values, text);
  }

  const allowText = input.allow_text === true;
  if (text !== '' && !allowText) return fail(`text: this ${input.type} ask takes no free text (allow_text is off)`);
  const options = input.options ?? [];
  const known = new Set(options.map((o) => o.value));
  const seen = new Set<string>();
  for (const [i, v] of values.entries()) {
    if (!known.has(v)) return fail(`values[${i}]: "${v}" is not one of the options${knownList(known)}`);
    if (seen.has(v)) return fail(`values[${i}]: "${v}" is chosen twice`);
    seen.add(v);
  }

  if (input.type === 'buttons' || input.type === 'radio') {
    if (values.length > 1) return fail(`values: a ${input.type} ask takes one value (got ${values.length})`);
    if (values.length === 1 && text !== '')
      return fail(`text: a ${input.type} answer is one option or free text, not both`);
    if (values.length === 0) {
      if (!allowText) return fail(`values: a ${input.type} ask takes one value`);
      if (text === '') return fail('values: pick one option or write text');
    }
    return ok(values, text);
  }

  // checkboxes
  const min = input.min ?? 0;
  const max = input.max ?? options.length;
  if (values.length === 0) {
    // Free text may stand in for the whole selection, whatever min says. With allow_text on, an answer with neither
    // is refused even at min 0: the spec allows an empty selection with text, and without text only when allow_text
    // is off.
    if (text !== '') return ok(values, text);
    if (allowText) return fail('values: select at least one option or write text');
  }
  if (values.length < min) return fail(`values: ${values.length} chosen, fewer than input.min ${min}`);
  if (values.length > max) return fail(`values: ${values.length} chosen, more than input.max ${max}`);
  return ok(values, text);
}

/** The label of each value, in the same order; a value no option knows reads as itself. */
export function answerLabels(input: AskInput, values: readonly string[]): string[] {
  const labels = new Map((input.options ?? []).map((o) => [o.value, o.label]));
  return values.map((v) => labels.get(v) ?? v);
}

/**
 * The first line of a late answer delivered to the agent: the chosen labels joined with ", ", then the free text
 * after " — ", or "(no selection)" when there is neither, e.g. `Yes`, `A, B — also C`, `(no selection)`. The
 * text is kept verbatim, newlines included: the Answer: line that follows carries the exact values either way.
 */
export function answerSummaryLine(input: AskInput, answer: { values: readonly string[]; text: string }): string {
  const labels = answerLabels(input, answer.values).join(', ');
  const text = answer.text.trim();
  if (labels && text) return `${labels} — ${text}`;
  return labels || text || '(no selection)';
}

// Listing the options helps a client author see the mismatch, but only while the list stays short.
function knownList(known: ReadonlySet<string>): string {
  return known.size <= 10 ? ` (${[...known].join(', ')})` : '';
}

function ok(values: string[], text: string): AnswerResult {
  return { ok: true, answer: { values: [...values], text } };
}

function fail(error: string): { ok: false; error: string } {
  return { ok: false, error };
}
