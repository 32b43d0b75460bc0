import fc from 'fast-check';

/** Strings a path segment or file name should never get through with: climbing, absolute, encoded, NUL-bearing. */
export const TRAVERSALS = [
  '..',
  '../..',
  '../../../../etc/passwd',
  '..\\..\\windows',
  '/etc/passwd',
  '/',
  '.',
  '%2e%2e',
  '%2e%2e%2f',
  '..%2f..%2f',
  '%252e%252e%252f',
  '....//',
  '..;/',
  'a/../../b',
  'name\u0000.txt',
  '\u0000',
  '~',
  '~/.ssh/id_rsa',
  'state/api.token',
  '../state/api.token',
  'C:\\Windows',
  '\u202e..',
  '\uff0e\uff0e\uff0f',
] as const;

/** Odd strings: empty, whitespace, control characters, invisible and combining marks, emoji, half a surrogate, long. */
const ODD = ['', ' ', '\t\n', '\u0007', '\u007f', '\u200b', '\ufeff', 'é', 'e\u0301', '👩‍👩‍👧', '\ud800', 'x'.repeat(300)];

/** Any string, biased towards the ones validators get wrong. */
export const hostileString: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.string() },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'binary-ascii', maxLength: 40 }) },
  { weight: 2, arbitrary: fc.constantFrom(...TRAVERSALS, ...ODD) },
  // Lone surrogates survive JSON.stringify as escapes and decode to half a code point on the daemon's side.
  {
    weight: 1,
    arbitrary: fc.string({ unit: fc.integer({ min: 0xd800, max: 0xdfff }).map((c) => String.fromCharCode(c)) }),
  },
);

/** Numbers a schema might coerce or mis-bound: fractions, negatives, -0, huge, integers past 2^53. */
const hostileNumber = fc.oneof(
  fc.integer(),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.constantFrom(0, -0, -1, 1e308, 2 ** 53 + 1, 0.5, 3600.0001),
);

/**
 * Keys every route reads somewhere: a dictionary over them makes random bodies reach field validation instead of
 * stopping at "unknown field", without a hand-written schema per route.
 */
const FIELD_NAMES = [
  'text',
  'name',
  'template',
  'attachments',
  'reply_to',
  'values',
  'answers',
  'up_to',
  'to',
  'agent',
  'payload',
  'type',
  'run',
  'id',
  'task',
  'run_id',
  'attempts',
  'error',
  'log_path',
  'message',
  'sessionId',
  'sse',
  'fireAndForget',
  'continue',
  'overrides',
  'environments',
  'emoji',
  'color',
  'rules',
  'match',
  'provider',
  'endpoint',
  'keys',
  'url',
  'secret',
  'device',
  'prefs',
  'viewing',
  'question',
  'input',
  'options',
  'timeout_s',
  'message_id',
  'files',
  'limit',
  'before',
  'can_post',
  'repo',
  'branch',
  'base',
  'prompt',
  'env',
  'status',
  'temperature',
  'max_tokens',
  'reasoning',
  'started_at',
  'ended_at',
  'duration_ms',
  'at',
  'jsonrpc',
  'method',
  'params',
  '__proto__',
  'constructor',
  'prototype',
] as const;

const fieldName = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...FIELD_NAMES) },
  { weight: 1, arbitrary: fc.string() },
);

const leaf: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 4, arbitrary: hostileString },
  { weight: 2, arbitrary: hostileNumber },
  { weight: 1, arbitrary: fc.boolean() },
  { weight: 1, arbitrary: fc.constant(null) },
);

/** JSON values whose objects use the routes' field names, nested a few levels. */
export const fieldyJson: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    { weight: 3, arbitrary: leaf },
    { weight: 2, arbitrary: fc.array(tie('value'), { maxLength: 4 }) },
    { weight: 4, arbitrary: fc.dictionary(fieldName, tie('value'), { maxKeys: 5, noNullPrototype: true }) },
  ),
})).value;

/** A JSON request body: mostly an object of known fields, sometimes any JSON value at all. */
export const jsonBody: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 5, arbitrary: fc.dictionary(fieldName, fieldyJson, { maxKeys: 6, noNullPrototype: true }) },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  { weight: 1, arbitrary: fieldyJson },
);

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** No half of a surrogate pair: the string encodes to UTF-8 without replacement characters. */
export const wellFormed = (s: string): boolean => !LONE_SURROGATE.test(s);
