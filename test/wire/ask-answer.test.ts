import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  ASK_TEXT_MAX_CHARS,
  AnswerBody,
  answerLabels,
  answerSummaryLine,
  validateAnswer,
} from '../../src/wire/ask-answer.js';
import { describeZodError, type AskInput } from '../../src/wire/ask-input.js';

const yesNo = [
  { value: 'y', label: 'Yes' },
  { value: 'n', label: 'No' },
];
const abc = [
  { value: 'a', label: 'Alpha' },
  { value: 'b', label: 'Beta' },
  { value: 'c', label: 'Gamma' },
];

const inputs = {
  buttons: { type: 'buttons', options: yesNo },
  buttonsText: { type: 'buttons', options: yesNo, allow_text: true },
  radio: { type: 'radio', options: yesNo },
  radioText: { type: 'radio', options: yesNo, allow_text: true },
  checkboxes: { type: 'checkboxes', options: abc, min: 1, max: 2 },
  checkboxesMin0: { type: 'checkboxes', options: abc, min: 0, max: 3 },
  checkboxesText: { type: 'checkboxes', options: abc, allow_text: true, min: 2, max: 3 },
  checkboxesTextMin0: { type: 'checkboxes', options: abc, allow_text: true, min: 0, max: 3 },
  // As a hand-built input might arrive: no resolved min/max.
  checkboxesBare: { type: 'checkboxes', options: abc },
  text: { type: 'text', placeholder: 'say' },
} satisfies Record<string, AskInput>;
type InputName = keyof typeof inputs;

describe('validateAnswer: accepted answers', () => {
  const cases: { name: string; input: InputName; body: AnswerBody; want: { values: string[]; text: string } }[] = [
    { name: 'buttons: one known value', input: 'buttons', body: { values: ['y'] }, want: { values: ['y'], text: '' } },
    {
      name: 'buttons: an empty text field alongside the value is no text',
      input: 'buttons',
      body: { values: ['n'], text: '' },
      want: { values: ['n'], text: '' },
    },
    {
      name: 'buttons: whitespace-only text is trimmed away',
      input: 'buttons',
      body: { values: ['y'], text: '  \n ' },
      want: { values: ['y'], text: '' },
    },
    {
      name: 'buttons with allow_text: no value and text, trimmed',
      input: 'buttonsText',
      body: { values: [], text: '  Maybe later ' },
      want: { values: [], text: 'Maybe later' },
    },
    {
      name: 'buttons with allow_text: still answered by one value',
      input: 'buttonsText',
      body: { values: ['y'] },
      want: { values: ['y'], text: '' },
    },
    { name: 'radio: one known value', input: 'radio', body: { values: ['n'] }, want: { values: ['n'], text: '' } },
    {
      name: 'radio with allow_text: text alone',
      input: 'radioText',
      body: { text: 'neither' },
      want: { values: [], text: 'neither' },
    },
    {
      name: 'checkboxes: count at min',
      input: 'checkboxes',
      body: { values: ['c'] },
      want: { values: ['c'], text: '' },
    },
    {
      name: 'checkboxes: count at max, order kept',
      input: 'checkboxes',
      body: { values: ['c', 'a'] },
      want: { values: ['c', 'a'], text: '' },
    },
    {
      name: 'checkboxes without allow_text: an empty selection when min is 0',
      input: 'checkboxesMin0',
      body: { values: [] },
      want: { values: [], text: '' },
    },
    {
      name: 'checkboxes without allow_text: no body fields at all when min is 0',
      input: 'checkboxesMin0',
      body: {},
      want: { values: [], text: '' },
    },
    {
      name: 'checkboxes without resolved min/max: defaults 0 and the option count',
      input: 'checkboxesBare',
      body: { values: ['a', 'b', 'c'] },
      want: { values: ['a', 'b', 'c'], text: '' },
    },
    {
      name: 'checkboxes with allow_text: text replaces the selection even though min is 2',
      input: 'checkboxesText',
      body: { values: [], text: 'none of these' },
      want: { values: [], text: 'none of these' },
    },
    {
      name: 'checkboxes with allow_text: text accompanies a valid selection',
      input: 'checkboxesText',
      body: { values: ['a', 'b'], text: 'and d' },
      want: { values: ['a', 'b'], text: 'and d' },
    },
    { name: 'text: non-empty text', input: 'text', body: { text: 'main' }, want: { values: [], text: 'main' } },
    {
      name: 'text: empty values are fine',
      input: 'text',
      body: { values: [], text: ' feat/x ' },
      want: { values: [], text: 'feat/x' },
    },
    {
      name: `text: exactly ${ASK_TEXT_MAX_CHARS} characters, counted in code points`,
      input: 'text',
      body: { text: '😀'.repeat(ASK_TEXT_MAX_CHARS) },
      want: { values: [], text: '😀'.repeat(ASK_TEXT_MAX_CHARS) },
    },
  ];
  for (const c of cases) {
    it(c.name, () => assert.deepEqual(validateAnswer(inputs[c.input], c.body), { ok: true, answer: c.want }));
  }
});

describe('validateAnswer: rejected answers name the field', () => {
  const cases: { name: string; input: InputName; body: AnswerBody; error: RegExp }[] = [
    {
      name: 'buttons: no value',
      input: 'buttons',
      body: { values: [] },
      error: /^values: a buttons ask takes one value$/,
    },
    {
      name: 'buttons: two values',
      input: 'buttons',
      body: { values: ['y', 'n'] },
      error: /^values: a buttons ask takes one value \(got 2\)$/,
    },
    {
      name: 'buttons: an unknown value',
      input: 'buttons',
      body: { values: ['maybe'] },
      error: /^values\[0\]: "maybe" is not one of the options \(y, n\)$/,
    },
    {
      name: 'buttons: the same value twice',
      input: 'buttons',
      body: { values: ['y', 'y'] },
      error: /^values\[1\]: "y" is chosen twice$/,
    },
    {
      name: 'buttons without allow_text: text is refused',
      input: 'buttons',
      body: { values: ['y'], text: 'because' },
      error: /^text: this buttons ask takes no free text \(allow_text is off\)$/,
    },
    {
      name: 'buttons with allow_text: a value and text together',
      input: 'buttonsText',
      body: { values: ['y'], text: 'because' },
      error: /^text: a buttons answer is one option or free text, not both$/,
    },
    {
      name: 'buttons with allow_text: neither value nor text',
      input: 'buttonsText',
      body: { values: [], text: '   ' },
      error: /^values: pick one option or write text$/,
    },
    { name: 'radio: no value', input: 'radio', body: {}, error: /^values: a radio ask takes one value$/ },
    {
      name: 'radio without allow_text: text alone is refused',
      input: 'radio',
      body: { text: 'other' },
      error: /^text: this radio ask takes no free text/,
    },
    {
      name: 'checkboxes: below min',
      input: 'checkboxes',
      body: { values: [] },
      error: /^values: 0 chosen, fewer than input\.min 1$/,
    },
    {
      name: 'checkboxes: above max',
      input: 'checkboxes',
      body: { values: ['a', 'b', 'c'] },
      error: /^values: 3 chosen, more than input\.max 2$/,
    },
    {
      name: 'checkboxes: repeated values',
      input: 'checkboxes',
      body: { values: ['a', 'a'] },
      error: /^values\[1\]: "a" is chosen twice$/,
    },
    {
      name: 'checkboxes: an unknown value',
      input: 'checkboxes',
      body: { values: ['a', 'z'] },
      error: /^values\[1\]: "z" is not one of the options \(a, b, c\)$/,
    },
    {
      name: 'checkboxes without allow_text: text is refused',
      input: 'checkboxesMin0',
      body: { values: ['a'], text: 'x' },
      error: /^text: this checkboxes ask takes no free text/,
    },
    {
      name: 'checkboxes with allow_text: text does not excuse a partial selection below min',
      input: 'checkboxesText',
      body: { values: ['a'], text: 'and d' },
      error: /^values: 1 chosen, fewer than input\.min 2$/,
    },
    {
      name: 'checkboxes with allow_text: neither selection nor text, even at min 0',
      input: 'checkboxesTextMin0',
      body: { values: [], text: '' },
      error: /^values: select at least one option or write text$/,
    },
    {
      name: 'text: values given',
      input: 'text',
      body: { values: ['y'], text: 'x' },
      error: /^values: a text ask takes no values \(got 1\)$/,
    },
    { name: 'text: no text', input: 'text', body: {}, error: /^text: must not be empty$/ },
    { name: 'text: blank text', input: 'text', body: { text: ' \t ' }, error: /^text: must not be empty$/ },
    {
      name: 'text: over the cap',
      input: 'text',
      body: { text: 'x'.repeat(ASK_TEXT_MAX_CHARS + 1) },
      error: /^text: 4001 characters exceed the limit of 4000$/,
    },
    {
      name: 'allow_text: over the cap on a choice type',
      input: 'radioText',
      body: { text: 'x'.repeat(ASK_TEXT_MAX_CHARS + 1) },
      error: /^text: 4001 characters exceed the limit of 4000$/,
    },
    {
      name: 'per-question answers on an ordinary ask',
      input: 'buttons',
      body: { values: ['y'], answers: { q1: { values: ['y'] } } },
      error: /^answers: only a questions card takes per-question answers/,
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const r = validateAnswer(inputs[c.input], c.body);
      assert.equal(r.ok, false);
      if (!r.ok) assert.match(r.error, c.error);
    });
  }

  it('does not list the options when there are many', () => {
    const options = Array.from({ length: 11 }, (_, i) => ({ value: `v${i}`, label: `L${i}` }));
    const r = validateAnswer({ type: 'radio', options }, { values: ['nope'] });
    assert.deepEqual(r, { ok: false, error: 'values[0]: "nope" is not one of the options' });
  });
});

describe('AnswerBody schema', () => {
  const cases: { body: unknown; error: string }[] = [
    { body: { values: 'y' }, error: 'values: must be an array of strings' },
    { body: { values: [1] }, error: 'values[0]: must be a string' },
    { body: { text: 5 }, error: 'text: must be a string' },
    { body: { answers: [] }, error: 'answers: must be an object keyed by question id' },
    { body: { answers: { q1: { values: ['a'], note: 'x' } } }, error: 'answers.q1.note: unknown field' },
    { body: { value: 'y' }, error: 'value: unknown field' },
  ];
  for (const c of cases) {
    it(`rejects ${JSON.stringify(c.body)} naming the field`, () => {
      const r = AnswerBody.safeParse(c.body);
      assert.equal(r.success, false);
      if (!r.success) assert.equal(describeZodError(r.error), c.error);
    });
  }
});

describe('answerLabels', () => {
  it('maps values to labels in the answer order', () => {
    assert.deepEqual(answerLabels(inputs.checkboxes, ['c', 'a']), ['Gamma', 'Alpha']);
  });

  it('reads a value no option knows as itself', () => {
    assert.deepEqual(answerLabels(inputs.buttons, ['terminal']), ['terminal']);
  });

  it('is empty for no values and for a text ask', () => {
    assert.deepEqual(answerLabels(inputs.buttons, []), []);
    assert.deepEqual(answerLabels(inputs.text, []), []);
  });
});

describe('answerSummaryLine', () => {
  const cases: { name: string; input: InputName; answer: { values: string[]; text: string }; want: string }[] = [
    { name: 'a chosen label', input: 'buttons', answer: { values: ['y'], text: '' }, want: 'Yes' },
    {
      name: 'several labels joined with a comma',
      input: 'checkboxes',
      answer: { values: ['b', 'a'], text: '' },
      want: 'Beta, Alpha',
    },
    {
      name: 'labels then the free text after a dash',
      input: 'checkboxesText',
      answer: { values: ['a', 'b'], text: 'and d' },
      want: 'Alpha, Beta — and d',
    },
    { name: 'free text alone', input: 'buttonsText', answer: { values: [], text: 'Maybe' }, want: 'Maybe' },
    { name: 'a text ask', input: 'text', answer: { values: [], text: 'main' }, want: 'main' },
    { name: 'neither', input: 'checkboxesMin0', answer: { values: [], text: '' }, want: '(no selection)' },
    {
      name: 'blank text counts as none',
      input: 'checkboxesMin0',
      answer: { values: [], text: '  ' },
      want: '(no selection)',
    },
  ];
  for (const c of cases) {
    it(c.name, () => assert.equal(answerSummaryLine(inputs[c.input], c.answer), c.want));
  }
});
