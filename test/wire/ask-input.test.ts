import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  ASK_DESCRIPTION_MAX_CHARS,
  ASK_LABEL_MAX_CHARS,
  ASK_OPTIONS_MAX,
  ASK_PLACEHOLDER_MAX_CHARS,
  ASK_QUESTION_MAX_CHARS,
  ASK_TIMEOUT_MAX_S,
  ASK_VALUE_MAX_CHARS,
  AskInput,
  AskToolInput,
  askDeadline,
  charCount,
  normalizeAskInput,
  parseAskRequest,
  type AskOrigin,
  type AskSource,
} from '../../src/wire/ask-input.js';

const yesNo = [
  { value: 'y', label: 'Yes' },
  { value: 'n', label: 'No' },
];
const abc = [
  { value: 'a', label: 'A' },
  { value: 'b', label: 'B' },
  { value: 'c', label: 'C' },
];

function rejects(result: { ok: true } | { ok: false; error: string }, pattern: RegExp): void {
  assert.equal(result.ok, false, `expected a rejection matching ${pattern}`);
  if (!result.ok) assert.match(result.error, pattern);
}

describe('normalizeAskInput: accepted inputs', () => {
  const cases: { name: string; raw: unknown; source?: AskSource; want: AskInput }[] = [
    {
      name: 'bare-string options on MCP input become {value, label} objects',
      raw: { type: 'buttons', options: ['Yes', 'No'] },
      source: 'mcp',
      want: {
        type: 'buttons',
        options: [
          { value: 'Yes', label: 'Yes' },
          { value: 'No', label: 'No' },
        ],
      },
    },
    {
      name: 'bare strings and objects mix on MCP input',
      raw: { type: 'radio', options: ['a', { value: 'b', label: 'Bee' }] },
      source: 'mcp',
      want: {
        type: 'radio',
        options: [
          { value: 'a', label: 'a' },
          { value: 'b', label: 'Bee' },
        ],
      },
    },
    {
      name: 'an empty description is omitted and a real one kept',
      raw: {
        type: 'buttons',
        options: [
          { value: 'y', label: 'Yes', description: '' },
          { value: 'n', label: 'No', description: 'leave it' },
        ],
      },
      want: {
        type: 'buttons',
        options: [
          { value: 'y', label: 'Yes' },
          { value: 'n', label: 'No', description: 'leave it' },
        ],
      },
    },
    {
      name: 'checkboxes carry min 0 and max = option count when both are omitted',
      raw: { type: 'checkboxes', options: abc },
      want: { type: 'checkboxes', options: abc, min: 0, max: 3 },
    },
    {
      name: 'checkboxes keep an explicit min and max',
      raw: { type: 'checkboxes', options: abc, min: 1, max: 2 },
      want: { type: 'checkboxes', options: abc, min: 1, max: 2 },
    },
    {
      name: 'checkboxes accept min = max = option count',
      raw: { type: 'checkboxes', options: abc, min: 3, max: 3 },
      want: { type: 'checkboxes', options: abc, min: 3, max: 3 },
    },
    {
      name: 'checkboxes with only max 1 default min to 0',
      raw: { type: 'checkboxes', options: abc, max: 1 },
      want: { type: 'checkboxes', options: abc, min: 0, max: 1 },
    },
    {
      name: 'allow_text and placeholder on a choice type',
      raw: { type: 'radio', options: yesNo, allow_text: true, placeholder: 'or say why' },
      want: { type: 'radio', options: yesNo, allow_text: true, placeholder: 'or say why' },
    },
    {
      name: 'allow_text: false is dropped',
      raw: { type: 'buttons', options: yesNo, allow_text: false },
      want: { type: 'buttons', options: yesNo },
    },
    {
      name: 'min: 0 on a non-checkbox type is dropped',
      raw: { type: 'buttons', options: yesNo, min: 0 },
      want: { type: 'buttons', options: yesNo },
    },
    {
      name: 'a text ask with a placeholder',
      raw: { type: 'text', placeholder: 'branch name' },
      want: { type: 'text', placeholder: 'branch name' },
    },
    {
      name: 'a text ask tolerates an empty options array and allow_text: false',
      raw: { type: 'text', options: [], allow_text: false },
      want: { type: 'text' },
    },
    {
      name: 'an empty placeholder is dropped',
      raw: { type: 'text', placeholder: '' },
      want: { type: 'text' },
    },
    {
      name: 'limits are inclusive',
      raw: {
        type: 'buttons',
        options: [
          {
            value: 'v'.repeat(ASK_VALUE_MAX_CHARS),
            label: 'l'.repeat(ASK_LABEL_MAX_CHARS),
            description: 'd'.repeat(ASK_DESCRIPTION_MAX_CHARS),
          },
        ],
        placeholder: 'p'.repeat(ASK_PLACEHOLDER_MAX_CHARS),
      },
      want: {
        type: 'buttons',
        options: [
          {
            value: 'v'.repeat(ASK_VALUE_MAX_CHARS),
            label: 'l'.repeat(ASK_LABEL_MAX_CHARS),
            description: 'd'.repeat(ASK_DESCRIPTION_MAX_CHARS),
          },
        ],
        placeholder: 'p'.repeat(ASK_PLACEHOLDER_MAX_CHARS),
      },
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const r = normalizeAskInput(c.raw, { source: c.source ?? 'api' });
      assert.deepEqual(r, { ok: true, input: c.want });
      // The result is the wire shape, and normalizing it again changes nothing.
      assert.deepEqual(AskInput.parse(c.want), c.want);
      assert.deepEqual(normalizeAskInput(c.want, { source: 'api' }), { ok: true, input: c.want });
    });
  }

  it(`accepts exactly ${ASK_OPTIONS_MAX} options`, () => {
    const options = Array.from({ length: ASK_OPTIONS_MAX }, (_, i) => `o${i}`);
    const r = normalizeAskInput({ type: 'checkboxes', options }, { source: 'mcp' });
    assert.equal(r.ok, true);
    if (r.ok) assert.equal(r.input.max, ASK_OPTIONS_MAX);
  });

  it('keeps values exactly as given: "a" and "a " are distinct', () => {
    const r = normalizeAskInput({ type: 'buttons', options: ['a', 'a '] }, { source: 'mcp' });
    assert.equal(r.ok, true);
  });
});

describe('normalizeAskInput: rejected inputs name the field', () => {
  const long = (n: number) => 'x'.repeat(n);
  const cases: { name: string; raw: unknown; source?: AskSource; error: RegExp }[] = [
    { name: 'not an object', raw: 'buttons', error: /^input: .*expected object/ },
    {
      name: 'missing type',
      raw: { options: ['a'] },
      error: /^input\.type: is required$/,
    },
    { name: 'unknown type', raw: { type: 'dropdown', options: ['a'] }, error: /^input\.type: must be buttons/ },
    {
      name: 'questions is not an input type an agent can ask for',
      raw: { type: 'questions', questions: [] },
      error: /^input\.type: .*questions cards are built by the daemon/,
    },
    { name: 'an unknown field', raw: { type: 'text', multi: true }, error: /^input\.multi: unknown field$/ },
    {
      name: 'buttons without options',
      raw: { type: 'buttons' },
      error: /^input\.options: a buttons ask needs at least one option$/,
    },
    {
      name: 'radio with empty options',
      raw: { type: 'radio', options: [] },
      error: /^input\.options: a radio ask needs/,
    },
    {
      name: 'checkboxes without options',
      raw: { type: 'checkboxes' },
      error: /^input\.options: a checkboxes ask needs/,
    },
    {
      name: 'options on a text ask',
      raw: { type: 'text', options: ['a'] },
      error: /^input\.options: a text ask takes no options$/,
    },
    {
      name: 'options not an array',
      raw: { type: 'buttons', options: 'a,b' },
      error: /^input\.options: must be an array$/,
    },
    {
      name: 'a bare-string option on the API',
      raw: { type: 'buttons', options: ['Yes'] },
      source: 'api',
      error:
        /^input\.options\[0\]: must be a \{value, label\} object \(bare strings are accepted only as MCP tool input\)$/,
    },
    {
      name: 'an option that is neither string nor object',
      raw: { type: 'buttons', options: [5] },
      source: 'mcp',
      error: /^input\.options\[0\]: must be a string or a \{value, label\} object$/,
    },
    {
      name: 'an option object without label',
      raw: { type: 'buttons', options: [{ value: 'a' }] },
      error: /^input\.options\[0\]\.label: is required$/,
    },
    {
      name: 'an option value that is not a string',
      raw: { type: 'buttons', options: [{ value: 1, label: 'One' }] },
      error: /^input\.options\[0\]\.value: must be a string$/,
    },
    {
      name: 'an unknown option field',
      raw: { type: 'buttons', options: [{ value: 'a', label: 'A', color: 'red' }] },
      error: /^input\.options\[0\]\.color: unknown field$/,
    },
    {
      name: 'an empty value',
      raw: { type: 'buttons', options: [{ value: '', label: 'A' }] },
      error: /^input\.options\[0\]\.value: must not be empty$/,
    },
    {
      name: 'a blank label',
      raw: { type: 'buttons', options: [{ value: 'a', label: '  ' }] },
      error: /^input\.options\[0\]\.label: must not be empty$/,
    },
    {
      name: 'an empty bare-string option',
      raw: { type: 'buttons', options: ['ok', ''] },
      source: 'mcp',
      error: /^input\.options\[1\]: must not be empty$/,
    },
    {
      name: 'duplicate values',
      raw: {
        type: 'radio',
        options: [
          { value: 'a', label: 'A' },
          { value: 'a', label: 'Also A' },
        ],
      },
      error: /^input\.options\[1\]\.value: "a" repeats the value of input\.options\[0\]$/,
    },
    {
      name: 'duplicate bare strings',
      raw: { type: 'buttons', options: ['x', 'y', 'x'] },
      source: 'mcp',
      error: /^input\.options\[2\]: "x" repeats the value of input\.options\[0\]$/,
    },
    {
      name: 'a value over the cap',
      raw: { type: 'buttons', options: [{ value: long(ASK_VALUE_MAX_CHARS + 1), label: 'A' }] },
      error: /^input\.options\[0\]\.value: 201 characters exceed the limit of 200$/,
    },
    {
      name: 'a label over the cap',
      raw: { type: 'buttons', options: [{ value: 'a', label: long(ASK_LABEL_MAX_CHARS + 1) }] },
      error: /^input\.options\[0\]\.label: 201 characters exceed the limit of 200$/,
    },
    {
      name: 'a description over the cap',
      raw: { type: 'buttons', options: [{ value: 'a', label: 'A', description: long(ASK_DESCRIPTION_MAX_CHARS + 1) }] },
      error: /^input\.options\[0\]\.description: 1001 characters exceed the limit of 1000$/,
    },
    {
      name: 'too many options',
      raw: { type: 'buttons', options: Array.from({ length: ASK_OPTIONS_MAX + 1 }, (_, i) => `o${i}`) },
      source: 'mcp',
      error: /^input\.options: 51 options exceed the limit of 50$/,
    },
    { name: 'min < 0', raw: { type: 'checkboxes', options: abc, min: -1 }, error: /^input\.min: -1 is negative$/ },
    { name: 'max < 1', raw: { type: 'checkboxes', options: abc, max: 0 }, error: /^input\.max: 0 is less than 1$/ },
    {
      name: 'max above the option count',
      raw: { type: 'checkboxes', options: abc, max: 5 },
      error: /^input\.max: 5 exceeds the 3 options$/,
    },
    {
      name: 'max above a single option',
      raw: { type: 'checkboxes', options: ['only'], max: 2 },
      source: 'mcp',
      error: /^input\.max: 2 exceeds the 1 option$/,
    },
    {
      name: 'min > max',
      raw: { type: 'checkboxes', options: abc, min: 3, max: 2 },
      error: /^input\.min: 3 is greater than input\.max 2$/,
    },
    {
      name: 'min above the option count when max is defaulted',
      raw: { type: 'checkboxes', options: abc, min: 4 },
      error: /^input\.min: 4 exceeds the 3 options$/,
    },
    {
      name: 'a fractional min',
      raw: { type: 'checkboxes', options: abc, min: 1.5 },
      error: /^input\.min: must be a whole number$/,
    },
    {
      name: 'a string max',
      raw: { type: 'checkboxes', options: abc, max: '2' },
      error: /^input\.max: must be a number$/,
    },
    {
      name: 'a nonzero min on buttons',
      raw: { type: 'buttons', options: yesNo, min: 1 },
      error: /^input\.min: only checkboxes take min \(got 1 on a buttons ask\)$/,
    },
    {
      name: 'any max on radio',
      raw: { type: 'radio', options: yesNo, max: 1 },
      error: /^input\.max: only checkboxes take max \(got 1 on a radio ask\)$/,
    },
    { name: 'max on text', raw: { type: 'text', max: 1 }, error: /^input\.max: only checkboxes take max/ },
    { name: 'a nonzero min on text', raw: { type: 'text', min: 2 }, error: /^input\.min: only checkboxes take min/ },
    {
      name: 'allow_text on a text ask',
      raw: { type: 'text', allow_text: true },
      error: /^input\.allow_text: a text ask is already free text/,
    },
    {
      name: 'allow_text that is not a boolean',
      raw: { type: 'buttons', options: yesNo, allow_text: 'yes' },
      error: /^input\.allow_text: must be true or false$/,
    },
    {
      name: 'a placeholder over the cap',
      raw: { type: 'text', placeholder: long(ASK_PLACEHOLDER_MAX_CHARS + 1) },
      error: /^input\.placeholder: 201 characters exceed the limit of 200$/,
    },
  ];
  for (const c of cases) {
    it(c.name, () => rejects(normalizeAskInput(c.raw, { source: c.source ?? 'api' }), c.error));
  }
});

describe('parseAskRequest', () => {
  it('top-level options with no input ask buttons', () => {
    assert.deepEqual(parseAskRequest({ question: 'Ship it?', options: ['Yes', 'No'] }, { source: 'mcp' }), {
      ok: true,
      request: {
        kind: 'ask',
        question: 'Ship it?',
        input: {
          type: 'buttons',
          options: [
            { value: 'Yes', label: 'Yes' },
            { value: 'No', label: 'No' },
          ],
        },
        timeoutS: null,
      },
    });
  });

  it('top-level option objects work on the API too', () => {
    const r = parseAskRequest({ question: 'Ship it?', options: yesNo }, { source: 'api' });
    assert.deepEqual(r.ok && r.request.kind === 'ask' && r.request.input, { type: 'buttons', options: yesNo });
  });

  it('an input is normalized as normalizeAskInput does', () => {
    const r = parseAskRequest(
      { question: 'Which?', input: { type: 'checkboxes', options: ['a', 'b'] }, timeout_s: 60 },
      { source: 'mcp' },
    );
    assert.deepEqual(r.ok && r.request, {
      kind: 'ask',
      question: 'Which?',
      input: {
        type: 'checkboxes',
        options: [
          { value: 'a', label: 'a' },
          { value: 'b', label: 'b' },
        ],
        min: 0,
        max: 2,
      },
      timeoutS: 60,
    });
  });

  it('neither input nor options asks for free text', () => {
    const r = parseAskRequest({ question: 'Which branch?' }, { source: 'api' });
    assert.deepEqual(r.ok && r.request.kind === 'ask' && r.request.input, { type: 'text' });
  });

  it('timeout_s 0 and absent both mean no deadline; the maximum is accepted', () => {
    for (const [timeout_s, want] of [
      [undefined, null],
      [0, null],
      [1, 1],
      [ASK_TIMEOUT_MAX_S, ASK_TIMEOUT_MAX_S],
    ] as const) {
      const r = parseAskRequest({ question: 'q', timeout_s }, { source: 'mcp' });
      assert.equal(r.ok && r.request.kind === 'ask' && r.request.timeoutS, want, `timeout_s ${timeout_s}`);
    }
  });

  it('only message_id resumes waiting', () => {
    assert.deepEqual(parseAskRequest({ message_id: '01JABC' }, { source: 'mcp' }), {
      ok: true,
      request: { kind: 'resume', messageId: '01JABC' },
    });
  });

  it(`a question of exactly ${ASK_QUESTION_MAX_CHARS} characters is accepted, counted in code points`, () => {
    const q = '😀'.repeat(ASK_QUESTION_MAX_CHARS);
    assert.equal(charCount(q), ASK_QUESTION_MAX_CHARS);
    assert.equal(parseAskRequest({ question: q }, { source: 'api' }).ok, true);
  });

  it('the exported tool schema accepts what the tool accepts', () => {
    assert.equal(AskToolInput.safeParse({ question: 'q', options: ['a', { value: 'b', label: 'B' }] }).success, true);
  });

  const bad: { name: string; raw: unknown; source?: AskSource; error: RegExp }[] = [
    { name: 'not an object (MCP)', raw: 'Ship it?', source: 'mcp', error: /^arguments: .*expected object/ },
    { name: 'not an object (API)', raw: null, error: /^body: .*expected object/ },
    { name: 'no question', raw: { options: ['a'] }, source: 'mcp', error: /^question: is required$/ },
    { name: 'a blank question', raw: { question: '   ' }, error: /^question: must not be empty$/ },
    { name: 'a question that is not a string', raw: { question: 42 }, error: /^question: must be a string$/ },
    {
      name: 'a question over the cap',
      raw: { question: 'q'.repeat(ASK_QUESTION_MAX_CHARS + 1) },
      error: /^question: 4001 characters exceed the limit of 4000$/,
    },
    {
      name: 'both input and top-level options',
      raw: { question: 'q', input: { type: 'buttons', options: ['a'] }, options: ['a'] },
      source: 'mcp',
      error: /^options: give options inside input, or top-level options without input, not both$/,
    },
    {
      name: 'top-level bare strings on the API',
      raw: { question: 'q', options: ['Yes'] },
      error: /^options\[0\]: must be a \{value, label\} object/,
    },
    {
      name: 'empty top-level options',
      raw: { question: 'q', options: [] },
      source: 'mcp',
      error: /^options: a buttons ask needs at least one option$/,
    },
    {
      name: 'duplicate top-level options',
      raw: { question: 'q', options: ['a', 'a'] },
      source: 'mcp',
      error: /^options\[1\]: "a" repeats the value of options\[0\]$/,
    },
    {
      name: 'an input error keeps its input. path',
      raw: { question: 'q', input: { type: 'checkboxes', options: ['a', 'b', 'c'], max: 5 } },
      source: 'mcp',
      error: /^input\.max: 5 exceeds the 3 options$/,
    },
    {
      name: 'a schema error inside input',
      raw: { question: 'q', input: { type: 'buttons', options: [{ value: 'a' }] } },
      error: /^input\.options\[0\]\.label: is required$/,
    },
    { name: 'a negative timeout_s', raw: { question: 'q', timeout_s: -1 }, error: /^timeout_s: -1 is negative/ },
    {
      name: 'timeout_s above 3600',
      raw: { question: 'q', timeout_s: 3601 },
      error: /^timeout_s: 3601 exceeds the maximum of 3600$/,
    },
    {
      name: 'a string timeout_s',
      raw: { question: 'q', timeout_s: '60' },
      error: /^timeout_s: must be a number of seconds$/,
    },
    {
      name: 'message_id with other fields',
      raw: { message_id: '01JABC', question: 'q' },
      error: /^message_id: resuming an ask takes only message_id \(drop question\)$/,
    },
    { name: 'an empty message_id', raw: { message_id: '' }, error: /^message_id: must not be empty$/ },
    { name: 'an unknown field', raw: { question: 'q', files: ['/a.png'] }, error: /^files: unknown field$/ },
  ];
  for (const c of bad) {
    it(`rejects ${c.name}`, () => rejects(parseAskRequest(c.raw, { source: c.source ?? 'api' }), c.error));
  }
});

describe('askDeadline', () => {
  const agent: AskOrigin = { kind: 'agent' };
  const oneshot: AskOrigin = { kind: 'oneshot_task' };
  const persistentOwn: AskOrigin = { kind: 'persistent_task', ownerIsAsker: true };
  const persistentOther: AskOrigin = { kind: 'persistent_task', ownerIsAsker: false };
  const cases: { name: string; timeout_s?: number; context: AskOrigin; want: number | null }[] = [
    { name: 'an agent ask without timeout_s waits forever', context: agent, want: null },
    { name: 'an agent ask with timeout_s 0 waits forever', timeout_s: 0, context: agent, want: null },
    { name: 'an agent ask with timeout_s keeps it', timeout_s: 90, context: agent, want: 90_000 },
    { name: 'an agent ask may take the maximum', timeout_s: 3600, context: agent, want: 3_600_000 },
    { name: 'a oneshot task run defaults to 300 s', context: oneshot, want: 300_000 },
    { name: 'a oneshot task run with timeout_s 0 still gets 300 s', timeout_s: 0, context: oneshot, want: 300_000 },
    { name: 'a oneshot task run keeps its own timeout_s', timeout_s: 30, context: oneshot, want: 30_000 },
    { name: 'a persistent task owned by its own agent waits forever', context: persistentOwn, want: null },
    { name: 'a persistent task owned by another agent defaults to 300 s', context: persistentOther, want: 300_000 },
    {
      name: 'a persistent task owned by another agent keeps its own timeout_s',
      timeout_s: 1200,
      context: persistentOther,
      want: 1_200_000,
    },
    { name: 'a fractional timeout_s is rounded to the ms', timeout_s: 1.5, context: agent, want: 1500 },
  ];
  for (const c of cases) {
    it(c.name, () => assert.deepEqual(askDeadline(c), { ok: true, deadlineMs: c.want }));
  }

  it('rejects timeout_s above 3600, naming the field', () => {
    rejects(askDeadline({ timeout_s: 3601, context: oneshot }), /^timeout_s: 3601 exceeds the maximum of 3600$/);
  });

  it('rejects a negative timeout_s, naming the field', () => {
    rejects(askDeadline({ timeout_s: -5, context: agent }), /^timeout_s: -5 is negative/);
  });
});
