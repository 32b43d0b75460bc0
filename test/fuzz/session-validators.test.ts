import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { parseAttachments, userMessageParts } from '../../src/sessions/attachments.js';
import { parseChatRequest } from '../../src/sessions/chat-request.js';
import { parseOverrides, type ValidationFailure } from '../../src/sessions/overrides.js';
import { LlmSettings } from '../../src/wire/sessions.js';
import { fieldyJson, hostileString } from './arbitraries.js';
import { fuzzParams } from './fuzz-params.js';

/** The one failure shape these parsers may answer with: a 400 VALIDATION_ERROR naming its field first. */
function assertFailure(r: ValidationFailure, fieldPrefix: string): void {
  assert.equal(r.code, 'VALIDATION_ERROR');
  assert.ok(r.details.field.startsWith(fieldPrefix), `field ${r.details.field} under ${fieldPrefix}`);
  assert.ok(r.message.startsWith(`${r.details.field}: `), r.message);
  assert.ok(r.message.length > r.details.field.length + 2, 'says what is wrong');
}

const base64 = fc.oneof(
  fc.uint8Array({ maxLength: 48 }).map((b) => Buffer.from(b).toString('base64')),
  fc.uint8Array({ maxLength: 48 }).map((b) => Buffer.from(b).toString('base64').replace(/=+$/, '')),
  fc
    .uint8Array({ minLength: 60, maxLength: 120 })
    .map((b) => Buffer.from(b).toString('base64').replace(/.{76}/g, '$&\n')),
  fc.constantFrom('', '=', 'a', 'ab=c', 'data:image/png;base64,AAAA', '@@@@', 'AAAA===='),
  hostileString,
);
const url = fc.oneof(
  fc.webUrl(),
  fc.constantFrom(
    'file:///etc/passwd',
    'data:text/plain,hi',
    'javascript:alert(1)',
    'http://',
    'https://x/../../y',
    'ftp://h/x',
  ),
  hostileString,
);
const mediaType = fc.oneof(
  fc.constantFrom(
    'image/png',
    'video/mp4',
    'application/pdf',
    'text/plain;base64,',
    'image/png,x',
    'IMAGE/PNG',
    'image',
  ),
  hostileString,
);
const attachment = fc.oneof(
  {
    weight: 5,
    arbitrary: fc.record(
      {
        type: fc.oneof(fc.constantFrom('image', 'video', 'audio', 'file', 'pdf'), hostileString),
        url,
        data: base64,
        mediaType,
        format: fc.oneof(fc.constantFrom('wav', 'mp3', 'ogg', 'exe'), hostileString),
        filename: fc.oneof(hostileString, fc.constantFrom('report.pdf', '../../etc/passwd')),
        extra: fieldyJson,
      },
      { requiredKeys: [] },
    ),
  },
  { weight: 1, arbitrary: fieldyJson },
);
const overrides = fc.oneof(
  fc.record(
    {
      model: fc.oneof(hostileString, fc.constant('gpt-x')),
      temperature: fc.oneof(fc.double(), fc.constantFrom(0, 2, 2.5, -0.1)),
      max_tokens: fc.oneof(fc.integer(), fc.double()),
      reasoning: fc.oneof(
        fc.record(
          { effort: fc.oneof(fc.constantFrom('low', 'medium', 'high'), hostileString), max_tokens: fc.integer() },
          { requiredKeys: [] },
        ),
        hostileString,
        fieldyJson,
      ),
      top_p: fc.double(),
      effort: hostileString,
      tools: fieldyJson,
    },
    { requiredKeys: [] },
  ),
  fieldyJson,
);

describe('fuzz: agent chat endpoint validators', () => {
  it('parseOverrides: never throws; accepted settings are exactly the whitelist', () => {
    fc.assert(
      fc.property(overrides, fc.constantFrom('overrides', ''), (value, prefix) => {
        const r = parseOverrides(value, prefix);
        if (!r.ok) return assertFailure(r, prefix);
        assert.deepEqual(LlmSettings.parse(r.value), r.value);
      }),
      fuzzParams(1500),
    );
  });

  it('parseAttachments: never throws; refuses only a non-array or an over-cap attachment; data is normalized', () => {
    fc.assert(
      fc.property(fc.oneof(fc.array(attachment, { maxLength: 4 }), fieldyJson), (value) => {
        const r = parseAttachments(value);
        if (!r.ok) {
          assertFailure(r, 'attachments');
          // The spec's two conditions only (issue 29 item 9); the fuzzed data is far under the cap.
          return assert.equal(r.details.field, 'attachments');
        }
        for (const a of r.value) {
          const data = 'source' in a ? ('data' in a.source ? a.source.data : null) : a.data;
          if (data === null) continue;
          assert.doesNotMatch(data, /\s/);
          assert.equal(data.length % 4, 0);
        }
        const parts = userMessageParts('hi', r.value);
        assert.equal(parts.length, r.value.length + 1);
      }),
      fuzzParams(1500),
    );
  });

  it('parseChatRequest: never throws; a request names its mode, and a new turn sends the message given', () => {
    const body = fc.oneof(
      {
        weight: 5,
        arbitrary: fc.record(
          {
            message: fc.oneof(hostileString, fc.constant('@notes.md hello')),
            sessionId: hostileString,
            sse: fc.oneof(fc.boolean(), fieldyJson),
            fireAndForget: fc.oneof(fc.boolean(), fieldyJson),
            continue: fc.oneof(fc.boolean(), fieldyJson),
            attachments: fc.oneof(fc.array(attachment, { maxLength: 3 }), fieldyJson),
            overrides,
            sesionId: hostileString,
          },
          { requiredKeys: [] },
        ),
      },
      { weight: 1, arbitrary: fieldyJson },
    );
    fc.assert(
      fc.property(body, (value) => {
        const r = parseChatRequest(value);
        if (!r.ok) return assertFailure(r, '');
        const b = value as Record<string, unknown>;
        assert.equal(r.value.response, b.fireAndForget === true ? 'fireAndForget' : b.sse === true ? 'sse' : 'json');
        assert.deepEqual(LlmSettings.parse(r.value.overrides), r.value.overrides);
        if (r.value.continue) assert.ok(r.value.sessionId.length > 0);
        else assert.equal(r.value.message, b.message);
      }),
      fuzzParams(1500),
    );
  });
});
