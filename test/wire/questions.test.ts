import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { AnswerBody } from '../../src/wire/ask-answer.js';
import { Answer } from '../../src/wire/ask-answer.js';
import {
  MessageInput,
  QuestionsInput,
  buildQuestionsInput,
  updatedInputFor,
  validateQuestionsAnswer,
} from '../../src/wire/questions.js';

/** Shaped like a real AskUserQuestion tool_input, extra fields included. */
function toolInput() {
  return {
    questions: [
      {
        question: 'Which size?',
        header: 'Size',
        multiSelect: false,
        options: [
          { label: 'L', description: 'large' },
          { label: 'M', description: 'medium' },
          { label: 'S', description: '' },
        ],
      },
      {
        question: 'Which extras?',
        header: 'Extras',
        multiSelect: true,
        options: [
          { label: 'Tests', description: 'unit tests', preview: 'describe(...)' },
          { label: 'Docs', description: 'README' },
          { label: 'Bench', description: 'benchmarks' },
        ],
      },
    ],
    metadata: { source: 'remember' },
  };
}

function card(): QuestionsInput {
  const r = buildQuestionsInput(toolInput());
  if (!r.ok) assert.fail(r.reason);
  return r.input;
}

describe('buildQuestionsInput', () => {
  it('builds the spec example exactly', () => {
    const r = buildQuestionsInput({
      questions: [
        {
          question: 'Which size?',
          header: 'Size',
          multiSelect: false,
          options: [{ label: 'L', description: 'large' }],
        },
      ],
    });
    assert.deepEqual(r, {
      ok: true,
      input: {
        type: 'questions',
        questions: [
          {
            id: 'q1',
            header: 'Size',
            question: 'Which size?',
            multi: false,
            allow_text: true,
            options: [{ value: 'L', label: 'L', description: 'large' }],
          },
        ],
      },
    });
  });

  it('numbers questions q1..qN by position, sets value = label, drops empty descriptions and extra fields', () => {
    const input = card();
    assert.deepEqual(
      input.questions.map((q) => [q.id, q.multi, q.options.map((o) => o.value)]),
      [
        ['q1', false, ['L', 'M', 'S']],
        ['q2', true, ['Tests', 'Docs', 'Bench']],
      ],
    );
    assert.deepEqual(input.questions[0]!.options[2], { value: 'S', label: 'S' });
    assert.deepEqual(input.questions[1]!.options[0], { value: 'Tests', label: 'Tests', description: 'unit tests' });
    // The wire shape: parses as a card and as a Message input; no top-level options, min, max or placeholder.
    assert.deepEqual(QuestionsInput.parse(input), input);
    assert.deepEqual(MessageInput.parse(input), input);
    assert.deepEqual(Object.keys(input), ['type', 'questions']);
  });

  it('fills a missing header with "" and a missing multiSelect with false', () => {
    const r = buildQuestionsInput({ questions: [{ question: 'Go?', options: [{ label: 'Yes' }, { label: 'No' }] }] });
    assert.deepEqual(r.ok && r.input.questions[0], {
      id: 'q1',
      header: '',
      question: 'Go?',
      multi: false,
      allow_text: true,
      options: [
        { value: 'Yes', label: 'Yes' },
        { value: 'No', label: 'No' },
      ],
    });
  });

  it('keeps question text exactly, spaces included, since answers are keyed by it', () => {
    const r = buildQuestionsInput({ questions: [{ question: ' Go? ', header: 'h', options: [{ label: 'Yes' }] }] });
    assert.equal(r.ok && r.input.questions[0]!.question, ' Go? ');
  });

  it('takes four questions, and the same label in different questions', () => {
    const questions = [1, 2, 3, 4].map((n) => ({ question: `Q${n}?`, header: `H${n}`, options: [{ label: 'Yes' }] }));
    const r = buildQuestionsInput({ questions });
    assert.deepEqual(r.ok && r.input.questions.map((q) => q.id), ['q1', 'q2', 'q3', 'q4']);
  });

  const misfits: { name: string; toolInput: unknown; reason: RegExp }[] = [
    { name: 'not an object', toolInput: null, reason: /^tool_input: .*expected object/ },
    { name: 'no questions field', toolInput: {}, reason: /^tool_input\.questions: is required$/ },
    {
      name: 'questions not an array',
      toolInput: { questions: 'Which?' },
      reason: /^tool_input\.questions: must be an array$/,
    },
    { name: 'an empty questions array', toolInput: { questions: [] }, reason: /^tool_input\.questions: no questions$/ },
    {
      name: 'more than 4 questions',
      toolInput: {
        questions: [1, 2, 3, 4, 5].map((n) => ({ question: `Q${n}?`, header: 'h', options: [{ label: 'Yes' }] })),
      },
      reason: /^tool_input\.questions: 5 questions, more than the 4 a card holds$/,
    },
    {
      name: 'duplicate question text',
      toolInput: {
        questions: [
          { question: 'Which?', header: 'a', options: [{ label: 'A' }] },
          { question: 'Which?', header: 'b', options: [{ label: 'B' }] },
        ],
      },
      reason: /^tool_input\.questions\[1\]\.question: repeats questions\[0\] word for word$/,
    },
    {
      name: 'duplicate labels within a question',
      toolInput: { questions: [{ question: 'Which?', header: 'a', options: [{ label: 'A' }, { label: 'A' }] }] },
      reason: /^tool_input\.questions\[0\]\.options\[1\]\.label: "A" repeats options\[0\]$/,
    },
    {
      name: 'a question without options',
      toolInput: { questions: [{ question: 'Which?', header: 'a', options: [] }] },
      reason: /^tool_input\.questions\[0\]\.options: no options$/,
    },
    {
      name: 'a question missing its options field',
      toolInput: { questions: [{ question: 'Which?', header: 'a' }] },
      reason: /^tool_input\.questions\[0\]\.options: is required$/,
    },
    {
      name: 'a blank question',
      toolInput: { questions: [{ question: ' ', header: 'a', options: [{ label: 'A' }] }] },
      reason: /^tool_input\.questions\[0\]\.question: must not be empty$/,
    },
    {
      name: 'a blank label',
      toolInput: { questions: [{ question: 'Which?', header: 'a', options: [{ label: '' }] }] },
      reason: /^tool_input\.questions\[0\]\.options\[0\]\.label: must not be empty$/,
    },
    {
      name: 'a label that is not a string',
      toolInput: { questions: [{ question: 'Which?', header: 'a', options: [{ label: 7 }] }] },
      reason: /^tool_input\.questions\[0\]\.options\[0\]\.label: must be a string$/,
    },
    {
      name: 'a label too long for an option',
      toolInput: { questions: [{ question: 'Which?', header: 'a', options: [{ label: 'x'.repeat(201) }] }] },
      reason: /^tool_input\.questions\[0\]\.options\[0\]\.label: longer than 200 characters$/,
    },
  ];
  for (const c of misfits) {
    it(`does not fit: ${c.name}`, () => {
      const r = buildQuestionsInput(c.toolInput);
      assert.equal(r.ok, false);
      if (!r.ok) assert.match(r.reason, c.reason);
    });
  }
});

describe('validateQuestionsAnswer', () => {
  const accepted: { name: string; body: AnswerBody; answers: Record<string, { values: string[]; text: string }> }[] = [
    {
      name: 'one value for single-select, several for multi-select',
      body: { answers: { q1: { values: ['L'] }, q2: { values: ['Docs', 'Tests'] } } },
      answers: { q1: { values: ['L'], text: '' }, q2: { values: ['Docs', 'Tests'], text: '' } },
    },
    {
      name: 'free text alone, trimmed, on either kind',
      body: { answers: { q1: { values: [], text: '  XL ' }, q2: { text: '\nnone\n' } } },
      answers: { q1: { values: [], text: 'XL' }, q2: { values: [], text: 'none' } },
    },
    {
      name: 'multi-select values with free text',
      body: { answers: { q1: { values: ['S'], text: ' ' }, q2: { values: ['Bench'], text: 'and lint' } } },
      answers: { q1: { values: ['S'], text: '' }, q2: { values: ['Bench'], text: 'and lint' } },
    },
    {
      name: 'empty top-level values and text next to answers',
      body: { values: [], text: '', answers: { q2: { values: ['Docs'] }, q1: { values: ['M'] } } },
      answers: { q1: { values: ['M'], text: '' }, q2: { values: ['Docs'], text: '' } },
    },
  ];
  for (const c of accepted) {
    it(`accepts ${c.name}`, () => {
      const r = validateQuestionsAnswer(card(), c.body);
      assert.deepEqual(r, { ok: true, answer: { values: [], text: '', answers: c.answers } });
      if (r.ok) {
        assert.deepEqual(Answer.parse(r.answer), r.answer);
        assert.deepEqual(Object.keys(r.answer.answers!), ['q1', 'q2']);
      }
    });
  }

  const rejected: { name: string; body: AnswerBody; error: RegExp }[] = [
    {
      name: 'top-level values',
      body: { values: ['L'], answers: { q1: { values: ['L'] }, q2: { values: ['Docs'] } } },
      error: /^values: a questions card is answered per question in answers; top-level values must be empty$/,
    },
    {
      name: 'top-level text',
      body: { text: 'L', answers: { q1: { values: ['L'] }, q2: { values: ['Docs'] } } },
      error: /^text: .*top-level text must be empty$/,
    },
    { name: 'no answers', body: { values: [], text: '' }, error: /^answers: is required for a questions card$/ },
    {
      name: 'an unknown question id',
      body: { answers: { q1: { values: ['L'] }, q2: { values: ['Docs'] }, q3: { text: 'x' } } },
      error: /^answers\.q3: no such question \(the card has q1, q2\)$/,
    },
    {
      name: 'a missing question',
      body: { answers: { q1: { values: ['L'] } } },
      error: /^answers\.q2: is required \(every question needs an answer\)$/,
    },
    {
      name: 'a question with neither value nor text',
      body: { answers: { q1: {}, q2: { values: ['Docs'] } } },
      error: /^answers\.q1: choose an option or write text$/,
    },
    {
      name: 'a question with only blank text',
      body: { answers: { q1: { values: ['L'] }, q2: { values: [], text: '   ' } } },
      error: /^answers\.q2: choose an option or write text$/,
    },
    {
      name: 'two values on a single-select question',
      body: { answers: { q1: { values: ['L', 'M'] }, q2: { values: ['Docs'] } } },
      error: /^answers\.q1\.values: a single-select question takes at most one value \(got 2\)$/,
    },
    {
      name: 'a value with text on a single-select question',
      body: { answers: { q1: { values: ['L'], text: 'XL' }, q2: { values: ['Docs'] } } },
      error: /^answers\.q1\.text: a single-select answer is one option or free text, not both$/,
    },
    {
      name: 'a repeated value on a multi-select question',
      body: { answers: { q1: { values: ['L'] }, q2: { values: ['Docs', 'Docs'] } } },
      error: /^answers\.q2\.values\[1\]: "Docs" is chosen twice$/,
    },
    {
      name: 'an unknown value',
      body: { answers: { q1: { values: ['XL'] }, q2: { values: ['Docs'] } } },
      error: /^answers\.q1\.values\[0\]: "XL" is not one of the options$/,
    },
    {
      name: 'a value from another question',
      body: { answers: { q1: { values: ['L'] }, q2: { values: ['L'] } } },
      error: /^answers\.q2\.values\[0\]: "L" is not one of the options$/,
    },
    {
      name: 'text over 4000 characters',
      body: { answers: { q1: { values: ['L'] }, q2: { text: 'x'.repeat(4001) } } },
      error: /^answers\.q2\.text: 4001 characters exceed the limit of 4000$/,
    },
  ];
  for (const c of rejected) {
    it(`rejects ${c.name}`, () => {
      const r = validateQuestionsAnswer(card(), c.body);
      assert.equal(r.ok, false);
      if (!r.ok) assert.match(r.error, c.error);
    });
  }
});

describe('updatedInputFor', () => {
  function answer(body: AnswerBody) {
    const r = validateQuestionsAnswer(card(), body);
    if (!r.ok) assert.fail(r.error);
    return r.answer.answers!;
  }

  it('keeps the original questions array verbatim and every other field, plus answers keyed by question text', () => {
    const original = toolInput();
    const before = structuredClone(original);
    const out = updatedInputFor(
      original,
      card(),
      answer({ answers: { q1: { values: ['L'] }, q2: { values: ['Docs'] } } }),
    );
    assert.equal(out.questions, original.questions);
    assert.deepEqual(out, { ...before, answers: { 'Which size?': 'L', 'Which extras?': ['Docs'] } });
    assert.deepEqual(original, before, 'the tool_input itself is not modified');
  });

  const cases: { name: string; body: AnswerBody; want: Record<string, string | string[]> }[] = [
    {
      name: 'single-select free text is the answer string; multi-select labels keep the chosen order',
      body: { answers: { q1: { text: ' XL ' }, q2: { values: ['Bench', 'Tests'] } } },
      want: { 'Which size?': 'XL', 'Which extras?': ['Bench', 'Tests'] },
    },
    {
      name: 'multi-select free text comes last',
      body: { answers: { q1: { values: ['S'] }, q2: { values: ['Tests', 'Docs'], text: 'and lint' } } },
      want: { 'Which size?': 'S', 'Which extras?': ['Tests', 'Docs', 'and lint'] },
    },
    {
      name: 'multi-select free text alone is a one-element list',
      body: { answers: { q1: { values: ['M'] }, q2: { text: 'nothing' } } },
      want: { 'Which size?': 'M', 'Which extras?': ['nothing'] },
    },
  ];
  for (const c of cases) {
    it(c.name, () => assert.deepEqual(updatedInputFor(toolInput(), card(), answer(c.body)).answers, c.want));
  }

  it('replaces answers Claude may already have put in the tool_input', () => {
    const original = { ...toolInput(), answers: { 'Which size?': 'stale' } };
    const out = updatedInputFor(
      original,
      card(),
      answer({ answers: { q1: { values: ['M'] }, q2: { values: ['Docs'] } } }),
    );
    assert.deepEqual(out.answers, { 'Which size?': 'M', 'Which extras?': ['Docs'] });
  });
});
