import { z } from 'zod';
import {
  ASK_DESCRIPTION_MAX_CHARS,
  ASK_LABEL_MAX_CHARS,
  ASK_OPTIONS_MAX,
  ASK_QUESTION_MAX_CHARS,
  AskInput,
  AskOption,
  charCount,
  describeZodError,
  mustBe,
} from './ask-input.js';
import { ASK_TEXT_MAX_CHARS, type AnswerBody, type AskAnswer, type QuestionAnswer } from './ask-answer.js';

/**
 * Questions cards: one ask message for all of a Claude AskUserQuestion call (spec: leo-chat.md, "Questions cards").
 * Pure: Claude's tool_input in, the card's input out; the user's answer in, Claude's updatedInput out.
 */

export const QUESTIONS_MAX = 4;

/**
 * Claude's AskUserQuestion tool_input, as far as a card reads it. Loose on purpose: Claude adds fields (preview,
 * annotations, metadata) a card has no use for, and updatedInput must hand them back untouched.
 */
export const AskUserQuestionInput = z.looseObject({
  questions: z.array(
    z.looseObject({
      question: z.string(mustBe('a string')),
      header: z.string(mustBe('a string')).optional(),
      multiSelect: z.boolean(mustBe('true or false')).optional(),
      options: z.array(
        z.looseObject({
          label: z.string(mustBe('a string')),
          description: z.string(mustBe('a string')).optional(),
        }),
        mustBe('an array'),
      ),
    }),
    mustBe('an array'),
  ),
});
export type AskUserQuestionInput = z.infer<typeof AskUserQuestionInput>;

export const CardQuestion = z.strictObject({
  id: z.string(),
  header: z.string(),
  question: z.string(),
  multi: z.boolean(),
  // Claude always offers "Other", so a card always takes free text.
  allow_text: z.literal(true),
  options: z.array(AskOption),
});
export type CardQuestion = z.infer<typeof CardQuestion>;

/** A questions card's input on the wire: no top-level options, min, max or placeholder. */
export const QuestionsInput = z.strictObject({
  type: z.literal('questions'),
  questions: z.array(CardQuestion),
});
export type QuestionsInput = z.infer<typeof QuestionsInput>;

/** Message.input: an agent's ask or a questions card. */
export const MessageInput = z.union([AskInput, QuestionsInput]);
export type MessageInput = z.infer<typeof MessageInput>;

export type BuildQuestionsResult = { ok: true; input: QuestionsInput } | { ok: false; reason: string };

/**
 * Builds a card from AskUserQuestion's tool_input, or says why it does not fit so the hook falls back to the plain
 * Allow/Deny prompt. Ids are q1..qN by position; each option's value is its label; question text is kept exactly,
 * because the answers Claude gets back are keyed by it.
 */
export function buildQuestionsInput(toolInput: unknown): BuildQuestionsResult {
  const parsed = AskUserQuestionInput.safeParse(toolInput);
  if (!parsed.success) return { ok: false, reason: describeZodError(parsed.error, 'tool_input') };
  const raw = parsed.data.questions;
  const misfit = (reason: string): BuildQuestionsResult => ({ ok: false, reason });

  if (raw.length === 0) return misfit('tool_input.questions: no questions');
  if (raw.length > QUESTIONS_MAX)
    return misfit(`tool_input.questions: ${raw.length} questions, more than the ${QUESTIONS_MAX} a card holds`);

  const questions: CardQuestion[] = [];
  const questionIndex = new Map<string, number>();
  for (const [i, q] of raw.entries()) {
    const at = `tool_input.questions[${i}]`;
    if (q.question.trim() === '') return misfit(`${at}.question: must not be empty`);
    if (charCount(q.question) > ASK_QUESTION_MAX_CHARS)
      return misfit(`${at}.question: longer than ${ASK_QUESTION_MAX_CHARS} characters`);
    const dupQ = questionIndex.get(q.question);
    if (dupQ !== undefined) return misfit(`${at}.question: repeats questions[${dupQ}] word for word`);
    questionIndex.set(q.question, i);

    if (q.options.length === 0) return misfit(`${at}.options: no options`);
    if (q.options.length > ASK_OPTIONS_MAX)
      return misfit(`${at}.options: ${q.options.length} options, more than ${ASK_OPTIONS_MAX}`);
    const options: AskOption[] = [];
    const labelIndex = new Map<string, number>();
    for (const [j, o] of q.options.entries()) {
      const oat = `${at}.options[${j}]`;
      if (o.label.trim() === '') return misfit(`${oat}.label: must not be empty`);
      if (charCount(o.label) > ASK_LABEL_MAX_CHARS)
        return misfit(`${oat}.label: longer than ${ASK_LABEL_MAX_CHARS} characters`);
      const dupL = labelIndex.get(o.label);
      if (dupL !== undefined) return misfit(`${oat}.label: "${o.label}" repeats options[${dupL}]`);
      labelIndex.set(o.label, j);
      const option: AskOption = { value: o.label, label: o.label };
      if (o.description) {
        if (charCount(o.description) > ASK_DESCRIPTION_MAX_CHARS)
          return misfit(`${oat}.description: longer than ${ASK_DESCRIPTION_MAX_CHARS} characters`);
        option.description = o.description;
      }
      options.push(option);
    }
    questions.push({
      id: `q${i + 1}`,
      header: q.header ?? '',
      question: q.question,
      multi: q.multiSelect === true,
      allow_text: true,
      options,
    });
  }
  return { ok: true, input: { type: 'questions', questions } };
}

export type QuestionsAnswerResult = { ok: true; answer: AskAnswer } | { ok: false; error: string };

/**
 * Checks a card's answer body question by question and returns Message.answer: empty top-level values and text, and
 * answers keyed by question id in card order, each with its text trimmed.
 */
export function validateQuestionsAnswer(input: QuestionsInput, body: AnswerBody): QuestionsAnswerResult {
  if ((body.values ?? []).length > 0)
    return fail('values: a questions card is answered per question in answers; top-level values must be empty');
  if ((body.text ?? '').trim() !== '')
    return fail('text: a questions card is answered per question in answers; top-level text must be empty');
  const given = body.answers;
  if (given === undefined) return fail('answers: is required for a questions card');

  const ids = input.questions.map((q) => q.id);
  const unknown = Object.keys(given).find((id) => !ids.includes(id));
  if (unknown !== undefined) return fail(`answers.${unknown}: no such question (the card has ${ids.join(', ')})`);

  const answers: Record<string, QuestionAnswer> = {};
  for (const q of input.questions) {
    const a = given[q.id];
    const at = `answers.${q.id}`;
    if (a === undefined) return fail(`${at}: is required (every question needs an answer)`);
    const values = a.values ?? [];
    const text = (a.text ?? '').trim();
    const textLen = charCount(text);
    if (textLen > ASK_TEXT_MAX_CHARS)
      return fail(`${at}.text: ${textLen} characters exceed the limit of ${ASK_TEXT_MAX_CHARS}`);
    if (values.length === 0 && text === '') return fail(`${at}: choose an option or write text`);
    if (!q.multi) {
      if (values.length > 1)
        return fail(`${at}.values: a single-select question takes at most one value (got ${values.length})`);
      if (values.length === 1 && text !== '')
        return fail(`${at}.text: a single-select answer is one option or free text, not both`);
    }
    const known = new Set(q.options.map((o) => o.value));
    const seen = new Set<string>();
    for (const [i, v] of values.entries()) {
      if (!known.has(v)) return fail(`${at}.values[${i}]: "${v}" is not one of the options`);
      if (seen.has(v)) return fail(`${at}.values[${i}]: "${v}" is chosen twice`);
      seen.add(v);
    }
    answers[q.id] = { values: [...values], text };
  }
  return { ok: true, answer: { values: [], text: '', answers } };
}

/** The answers Claude reads, keyed by exact question text: a label or free text, or for multi-select a list. */
export type AskUserQuestionAnswers = Record<string, string | string[]>;

/**
 * The updatedInput the hook hands Claude: the original tool_input untouched (its questions array verbatim, and any
 * other field Claude put there), plus answers. A single-select question maps to the chosen label or the free text; a
 * multi-select one to its chosen labels with any free text last.
 */
export function updatedInputFor(
  toolInput: unknown,
  input: QuestionsInput,
  answers: Readonly<Record<string, QuestionAnswer>>,
): Record<string, unknown> & { answers: AskUserQuestionAnswers } {
  const original = typeof toolInput === 'object' && toolInput !== null && !Array.isArray(toolInput) ? toolInput : {};
  const out: AskUserQuestionAnswers = {};
  for (const q of input.questions) {
    const a = answers[q.id];
    if (a === undefined) continue;
    const labels = a.values.map((v) => q.options.find((o) => o.value === v)?.label ?? v);
    if (q.multi) out[q.question] = a.text !== '' ? [...labels, a.text] : labels;
    else out[q.question] = labels[0] ?? a.text;
  }
  return { ...(original as Record<string, unknown>), answers: out };
}

function fail(error: string): { ok: false; error: string } {
  return { ok: false, error };
}
