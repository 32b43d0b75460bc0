import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import {
  ASK_OPTIONS_MAX,
  ASK_QUESTION_MAX_CHARS,
  ASK_TIMEOUT_MAX_S,
  AskInput,
  charCount,
  normalizeAskInput,
  parseAskRequest,
  type AskSource,
} from '../../src/wire/ask-input.js';
import { ASK_TEXT_MAX_CHARS, answerSummaryLine, validateAnswer, type AnswerBody } from '../../src/wire/ask-answer.js';
import { parseTranscriptLines } from '../../src/harnesses/claude/transcript.js';
import { ReminderError, parseReminderTime } from '../../src/chat/reminders/reminders.js';
import { TaskRun } from '../../src/wire/fleet.js';
import { TASK_RUN_LIMITS, normalizeTaskRunEvent } from '../../src/tasks/task-run-ingress.js';
import { fieldyJson, hostileString, wellFormed } from './arbitraries.js';
import { fuzzParams } from './fuzz-params.js';

// Values drawn from a tiny alphabet collide often, which is what exercises duplicate and unknown-option checks.
const shortValue = fc.oneof(fc.constantFrom('a', 'b', 'c', ' ', ''), hostileString);
const option = fc.oneof(
  shortValue,
  fc.record(
    { value: shortValue, label: shortValue, description: fc.oneof(shortValue, fc.constant('d'.repeat(1001))) },
    { requiredKeys: ['value', 'label'] },
  ),
  fieldyJson,
);
const smallInt = fc.oneof(fc.integer({ min: -2, max: 6 }), fc.double(), fc.constant(51));
const rawAskInput = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record(
      {
        type: fc.oneof(fc.constantFrom('buttons', 'radio', 'checkboxes', 'text', 'questions'), hostileString),
        options: fc.oneof(
          fc.array(option, { maxLength: 6 }),
          fc.array(fc.constant('x'), { minLength: ASK_OPTIONS_MAX + 1, maxLength: ASK_OPTIONS_MAX + 1 }),
        ),
        allow_text: fc.oneof(fc.boolean(), fieldyJson),
        min: smallInt,
        max: smallInt,
        placeholder: fc.oneof(shortValue, fc.constant('p'.repeat(201))),
      },
      { requiredKeys: [] },
    ),
  },
  { weight: 1, arbitrary: fieldyJson },
);
const source = fc.constantFrom<AskSource>('mcp', 'api');

/** A normalized input (what an open ask stores), so answers are checked against every shape an ask can take. */
const OPTION_VALUES = ['a', 'b', 'c', 'd', 'é', '😀'];
const storedInput = fc
  .record(
    {
      type: fc.constantFrom('buttons', 'radio', 'checkboxes', 'text'),
      options: fc.uniqueArray(
        fc.record({ value: fc.constantFrom(...OPTION_VALUES), label: fc.constantFrom('A', 'Yes') }),
        {
          selector: (o) => o.value,
          maxLength: 5,
        },
      ),
      allow_text: fc.boolean(),
      min: fc.integer({ min: 0, max: 3 }),
      max: fc.integer({ min: 1, max: 5 }),
    },
    { requiredKeys: ['type'] },
  )
  .map((raw) => normalizeAskInput(raw, { source: 'api' }))
  .filter((r) => r.ok)
  .map((r) => (r.ok ? r.input : (undefined as never)));

describe('fuzz: ask and answer validators', () => {
  it('normalizeAskInput: never throws; a result is the wire shape and normalizing it again changes nothing', () => {
    fc.assert(
      fc.property(rawAskInput, source, (raw, src) => {
        const r = normalizeAskInput(raw, { source: src });
        if (!r.ok) {
          assert.match(r.error, /^input.*: \S/s);
          return;
        }
        AskInput.parse(r.input);
        assert.deepEqual(normalizeAskInput(r.input, { source: 'api' }), r);
        const values = (r.input.options ?? []).map((o) => o.value);
        assert.equal(new Set(values).size, values.length, 'option values are unique');
        assert.ok(values.length <= ASK_OPTIONS_MAX);
        assert.equal(r.input.type === 'text', values.length === 0);
        if (r.input.type === 'checkboxes') assert.ok(0 <= r.input.min! && r.input.min! <= r.input.max!);
      }),
      fuzzParams(1500),
    );
  });

  it('parseAskRequest: never throws; an ask has a real question, a valid input and a bounded timeout', () => {
    const request = fc.oneof(
      fc.record(
        {
          question: fc.oneof(hostileString, fc.constant('q'.repeat(ASK_QUESTION_MAX_CHARS + 1)), fc.constant('q')),
          input: rawAskInput,
          options: fc.array(option, { maxLength: 4 }),
          timeout_s: fc.oneof(smallInt, fc.constantFrom(0, null, ASK_TIMEOUT_MAX_S, ASK_TIMEOUT_MAX_S + 1, -1, 1e309)),
          message_id: shortValue,
        },
        { requiredKeys: [] },
      ),
      fieldyJson,
    );
    fc.assert(
      fc.property(request, source, (raw, src) => {
        const r = parseAskRequest(raw, { source: src });
        if (!r.ok) {
          assert.match(r.error, /.: \S/);
          return;
        }
        if (r.request.kind === 'resume') {
          assert.notEqual(r.request.messageId.trim(), '');
          return;
        }
        assert.notEqual(r.request.question.trim(), '');
        assert.ok(charCount(r.request.question) <= ASK_QUESTION_MAX_CHARS);
        assert.deepEqual(normalizeAskInput(r.request.input, { source: 'api' }), { ok: true, input: r.request.input });
        const t = r.request.timeoutS;
        assert.ok(t === null || (t > 0 && t <= ASK_TIMEOUT_MAX_S), `timeout ${t}`);
      }),
      fuzzParams(1500),
    );
  });

  it('validateAnswer: never throws; an accepted answer fits its ask', () => {
    const body: fc.Arbitrary<AnswerBody> = fc.record(
      {
        values: fc.array(fc.oneof(fc.constantFrom(...OPTION_VALUES), shortValue), { maxLength: 4 }),
        text: fc.oneof(shortValue, fc.constant('t'.repeat(ASK_TEXT_MAX_CHARS + 1)), fc.constant(' x ')),
        answers: fc.constant({}),
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(storedInput, body, (input, answer) => {
        const r = validateAnswer(input, answer);
        if (!r.ok) {
          assert.match(r.error, /^[\w[\]]+: \S/);
          return;
        }
        const { values, text } = r.answer;
        assert.equal(text, text.trim());
        assert.ok(charCount(text) <= ASK_TEXT_MAX_CHARS);
        const known = new Set((input.options ?? []).map((o) => o.value));
        assert.ok(
          values.every((v) => known.has(v)),
          'only offered values',
        );
        assert.equal(new Set(values).size, values.length, 'no value twice');
        if (input.type === 'text') assert.ok(values.length === 0 && text !== '');
        if (input.type === 'buttons' || input.type === 'radio')
          assert.equal(values.length + (text ? 1 : 0), 1, 'one option or free text');
        if (input.type === 'checkboxes' && !(values.length === 0 && text))
          assert.ok(values.length >= input.min! && values.length <= input.max!);
        if (text && input.type !== 'text') assert.equal(input.allow_text, true);
        assert.notEqual(answerSummaryLine(input, r.answer), '');
      }),
      fuzzParams(1500),
    );
  });
});

/** A reference check written independently of the code under test: the fields exist on a calendar and a clock. */
function isCalendarTime(s: string): boolean {
  const [y, mo, d, h, mi, sec] = s.match(/\d+/g)!.map(Number) as number[];
  const days = new Date(Date.UTC(y!, mo!, 0)).getUTCDate();
  return mo! >= 1 && mo! <= 12 && d! >= 1 && d! <= days && h! <= 23 && mi! <= 59 && sec! <= 59;
}

describe('fuzz: task-run ingress', () => {
  const RFC3339 = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?([+-]\d\d:\d\d|Z)$/;
  const time = fc.oneof(
    fc.date({ noInvalidDate: true, min: new Date(0), max: new Date(4e12) }).map((d) => d.toISOString()),
    fc.constantFrom(
      '2026-02-30T10:00:00Z',
      '2025-02-29T10:00:00+02:00',
      '2026-04-31T00:00:00Z',
      '2026-01-01T24:00:00Z',
      '2026-01-01T10:00:60Z',
      '2026-13-01T00:00:00Z',
      '2026-01-01T00:00:00',
      '2026-01-01T25:61:61+99:99',
    ),
    hostileString,
    fc.constant(null),
  );
  const text = (max: number) =>
    fc.oneof(hostileString, fc.constant('x'.repeat(max + 1)), fc.constant('😀'.repeat(max + 1)), fc.constant(null));
  const event = fc.oneof(
    {
      weight: 5,
      arbitrary: fc.record(
        {
          type: fc.oneof(fc.constantFrom('task_run_started', 'task_run_succeeded', 'task_run_failed'), hostileString),
          run: fc.record(
            {
              id: fc.oneof(text(TASK_RUN_LIMITS.id), fc.constant('run-1')),
              task: fc.oneof(text(TASK_RUN_LIMITS.task), fc.constant('nightly')),
              status: fieldyJson,
              started_at: time,
              ended_at: time,
              duration_ms: fc.oneof(fc.integer(), fc.double(), fc.constant(null)),
              error: text(TASK_RUN_LIMITS.error),
              workspace: text(TASK_RUN_LIMITS.workspace),
              model: text(TASK_RUN_LIMITS.model),
              harness: text(TASK_RUN_LIMITS.harness),
              extra: fieldyJson,
            },
            { requiredKeys: [] },
          ),
        },
        { requiredKeys: [] },
      ),
    },
    { weight: 1, arbitrary: fieldyJson },
  );

  it('normalizeTaskRunEvent: never throws; a run is a well-formed TaskRun within its limits', () => {
    fc.assert(
      fc.property(event, fc.integer({ min: 0, max: 4e12 }), (body, receivedAt) => {
        const r = normalizeTaskRunEvent(body, receivedAt);
        if (!r.ok) {
          assert.match(r.error, /^[\w.]+: \S/);
          return;
        }
        TaskRun.parse(r.run);
        const expected = { task_run_started: 'running', task_run_succeeded: 'succeeded', task_run_failed: 'failed' };
        assert.equal(r.run.status, expected[r.type]);
        for (const [field, max] of Object.entries(TASK_RUN_LIMITS)) {
          const v = (r.run as Record<string, unknown>)[field];
          if (typeof v !== 'string') continue;
          assert.ok(charCount(v) <= max, `${field} is cut to ${max}`);
          const given = (body as { run: Record<string, unknown> }).run[field];
          if (typeof given === 'string' && wellFormed(given))
            assert.ok(wellFormed(v), `${field} is cut without leaving half of a surrogate pair`);
        }
        assert.notEqual(r.run.id, '');
        assert.notEqual(r.run.task, '');
        for (const at of [r.run.started_at, r.run.ended_at ?? r.run.started_at]) {
          assert.match(at, RFC3339);
          assert.ok(isCalendarTime(at), `${at} is a time that exists`);
        }
        if (r.run.status !== 'failed') assert.equal(r.run.error, null);
        if (r.run.status === 'running') assert.ok(r.run.ended_at === null && r.run.duration_ms === undefined);
        if (r.run.duration_ms !== undefined) assert.ok(Number.isInteger(r.run.duration_ms) && r.run.duration_ms >= 0);
      }),
      fuzzParams(1500),
    );
  });
});

describe('fuzz: transcript parser', () => {
  const block = fc.oneof(
    fc.record({
      type: fc.constant('text'),
      text: fc.oneof(hostileString, fc.constant('<system-reminder>x</system-reminder>')),
    }),
    fc.record(
      { type: fc.constant('tool_use'), name: hostileString, id: fc.oneof(hostileString, fieldyJson) },
      { requiredKeys: ['type'] },
    ),
    fc.record(
      { type: fc.constant('tool_result'), tool_use_id: hostileString, content: fieldyJson, is_error: fieldyJson },
      { requiredKeys: ['type'] },
    ),
    fieldyJson,
  );
  const content = fc.oneof(hostileString, fc.array(block, { maxLength: 4 }), fieldyJson);
  const line = fc.record(
    {
      type: fc.oneof(
        fc.constantFrom('user', 'assistant', 'attachment', 'system', 'summary', 'queue-operation'),
        hostileString,
      ),
      uuid: fc.oneof(hostileString, fieldyJson),
      timestamp: hostileString,
      isSidechain: fc.oneof(fc.boolean(), fieldyJson),
      isMeta: fc.oneof(fc.boolean(), fieldyJson),
      isCompactSummary: fc.boolean(),
      interruptedMessageId: hostileString,
      promptId: fc.oneof(hostileString, fieldyJson),
      subtype: hostileString,
      origin: fc.oneof(fc.record({ kind: hostileString }), fieldyJson),
      turnPosition: fc.oneof(fc.record({ turnIndex: fc.oneof(fc.integer(), fieldyJson) }), fieldyJson),
      message: fc.oneof(
        fc.record(
          { id: hostileString, role: fc.oneof(fc.constantFrom('user', 'system', 'assistant'), hostileString), content },
          { requiredKeys: [] },
        ),
        fieldyJson,
      ),
      attachment: fc.oneof(
        fc.record(
          {
            type: fc.constantFrom('queued_command', 'date'),
            prompt: content,
            commandMode: hostileString,
            origin: fc.record({ kind: hostileString }),
          },
          { requiredKeys: ['type'] },
        ),
        fieldyJson,
      ),
    },
    { requiredKeys: ['type'] },
  );
  const rawLine = fc.oneof(
    { weight: 6, arbitrary: line.map((l) => JSON.stringify(l)) },
    // Torn writes: a valid line cut anywhere, or any text at all.
    { weight: 1, arbitrary: fc.tuple(line, fc.nat()).map(([l, n]) => JSON.stringify(l).slice(0, n)) },
    { weight: 1, arbitrary: hostileString },
    { weight: 1, arbitrary: fieldyJson.map((v) => JSON.stringify(v) ?? '') },
  );
  const KINDS = new Set(['user_prompt', 'assistant_text', 'tool_use', 'tool_result', 'other']);

  it('parseTranscriptLines: never throws; every entry is well-formed', () => {
    fc.assert(
      fc.property(fc.array(rawLine, { maxLength: 12 }), (lines) => {
        const entries = parseTranscriptLines(lines);
        for (const e of entries) {
          assert.ok(KINDS.has(e.kind), e.kind);
          for (const k of [
            'text',
            'toolName',
            'toolUseId',
            'messageId',
            'origin',
            'promptId',
            'detail',
            'uuid',
            'timestamp',
          ] as const)
            assert.ok(e[k] === undefined || typeof e[k] === 'string', `${k} is a string`);
          if (e.kind === 'user_prompt') {
            assert.ok(e.text && e.text === e.text.trim(), 'a prompt has text, trimmed');
            assert.doesNotMatch(e.text, /<system-reminder>/);
          }
          if (e.turnIndex !== undefined) assert.equal(typeof e.turnIndex, 'number');
        }
        // Lines are read on their own: nothing a line holds can make an earlier one vanish.
        if (lines.length > 1) assert.ok(entries.length >= parseTranscriptLines(lines.slice(0, -1)).length);
      }),
      fuzzParams(1500),
    );
  });
});

describe('fuzz: reminder times (leo_chat_schedule)', () => {
  it('parseReminderTime: only ReminderError; an accepted time exists, lies ahead and at most a year out', () => {
    const now = Date.parse('2026-06-15T12:00:00Z');
    const pad = (n: number, w = 2) => String(n).padStart(w, '0');
    const at = fc.oneof(
      fc
        .record({
          y: fc.integer({ min: 2025, max: 2028 }),
          mo: fc.integer({ min: 0, max: 13 }),
          d: fc.integer({ min: 0, max: 32 }),
          h: fc.integer({ min: 0, max: 25 }),
          mi: fc.integer({ min: 0, max: 61 }),
          s: fc.option(fc.integer({ min: 0, max: 61 }), { nil: undefined }),
          zone: fc.constantFrom('Z', '+02:00', '-04:00', '+14:00', '-12:00', '+24:00', ''),
        })
        .map(
          ({ y, mo, d, h, mi, s, zone }) =>
            `${y}-${pad(mo)}-${pad(d)}T${pad(h)}:${pad(mi)}${s === undefined ? '' : `:${pad(s)}`}${zone}`,
        ),
      hostileString,
    );
    fc.assert(
      fc.property(at, (value) => {
        let ms: number;
        try {
          ms = parseReminderTime(value, now);
        } catch (err) {
          assert.ok(err instanceof ReminderError, String(err));
          assert.match((err as Error).message, /^at: \S/);
          return;
        }
        assert.ok(isCalendarTime(value.replace(/T(\d\d:\d\d)(?=[Z+-])/, 'T$1:00')), `${value} exists`);
        assert.ok(ms > now && ms - now <= 366 * 86_400_000, value);
      }),
      fuzzParams(1500),
    );
  });
});
