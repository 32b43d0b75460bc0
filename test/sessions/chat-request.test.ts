import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseChatRequest } from '../../src/sessions/chat-request.js';

const PNG = Buffer.from('png bytes').toString('base64');

function failsOn(body: unknown, field: string): string {
  const r = parseChatRequest(body);
  assert.equal(r.ok, false, `${JSON.stringify(body)} should fail on ${field}`);
  if (r.ok) return '';
  assert.equal(r.code, 'VALIDATION_ERROR');
  assert.deepEqual(r.details, { field });
  assert.ok(r.message.startsWith(`${field}: `), r.message);
  return r.message;
}

function value(body: unknown) {
  const r = parseChatRequest(body);
  assert.ok(r.ok, JSON.stringify(r));
  return r.value;
}

describe('parseChatRequest', () => {
  it('a bare message starts a new session, answered as JSON', () => {
    assert.deepEqual(value({ message: 'hi' }), {
      response: 'json',
      overrides: {},
      continue: false,
      message: 'hi',
      sessionId: null,
      attachments: [],
    });
    assert.equal(value({ message: 'hi', sessionId: 'sess_1', continue: false }).sessionId, 'sess_1');
  });

  it('a body that is not an object has no message (issue 29 item 9)', () => {
    for (const b of [null, undefined, [], 'hi', 1]) failsOn(b, 'message');
  });

  it('message: required unless continue, and a string; a blank one is sent as it is', () => {
    failsOn({}, 'message');
    failsOn({ sessionId: 's' }, 'message');
    assert.match(failsOn({ message: 5 }, 'message'), /must be a string/);
    failsOn({ message: null }, 'message');
    const blank = value({ message: '  \n' });
    assert.equal(!blank.continue && blank.message, '  \n');
    const withImage = value({ message: '', attachments: [{ type: 'image', url: 'https://example.com/a.png' }] });
    assert.equal(!withImage.continue && withImage.attachments.length, 1);
  });

  it('ignores unknown top-level fields and reads the flags as the spec does (issue 29 item 9)', () => {
    assert.deepEqual(value({ message: 'm', sesionId: 's', top_p: 1, stream: true }), value({ message: 'm' }));
    for (const flags of [{ sse: 'true' }, { fireAndForget: 1 }, { continue: 'yes' }, { sse: null }])
      assert.equal(value({ message: 'm', ...flags }).response, 'json', JSON.stringify(flags));
    assert.equal(value({ message: 'm', continue: 'yes', sessionId: 's' }).continue, false);
    // Omitted, or naming no session of ours (the turn answers 404 SESSION_NOT_FOUND for it).
    assert.equal(value({ message: 'm', sessionId: null }).sessionId, null);
    assert.equal(value({ message: 'm', sessionId: '' }).sessionId, null);
    assert.equal(value({ message: 'm', sessionId: 7 }).sessionId, '7');
  });

  it('continue: true needs a sessionId; a message or attachments next to it are ignored', () => {
    failsOn({ continue: true }, 'sessionId');
    failsOn({ continue: true, message: 'again' }, 'sessionId');
    failsOn({ continue: true, sessionId: '' }, 'sessionId');
    const resumed = {
      response: 'json',
      overrides: { temperature: 0 },
      continue: true,
      sessionId: 's',
    };
    assert.deepEqual(value({ continue: true, sessionId: 's', overrides: { temperature: 0 } }), resumed);
    assert.deepEqual(
      value({ continue: true, sessionId: 's', message: 'again', attachments: 'x', overrides: { temperature: 0 } }),
      resumed,
    );
  });

  it('sse streams, fireAndForget detaches, and fireAndForget wins when both are set', () => {
    assert.equal(value({ message: 'm', sse: true }).response, 'sse');
    assert.equal(value({ message: 'm', sse: false }).response, 'json');
    assert.equal(value({ message: 'm', fireAndForget: true }).response, 'fireAndForget');
    assert.equal(value({ message: 'm', fireAndForget: true, sse: true }).response, 'fireAndForget');
    assert.equal(value({ message: 'm', fireAndForget: false, sse: true }).response, 'sse');
    assert.equal(value({ continue: true, sessionId: 's', fireAndForget: true }).response, 'fireAndForget');
  });

  it('attachments: must be an array; the first given type is kept for engines that take none', () => {
    failsOn({ message: 'm', attachments: {} }, 'attachments');
    failsOn({ message: 'm', attachments: null }, 'attachments');
    const v = value({
      message: 'm',
      attachments: [{ type: 'hologram' }, { type: 'image', mediaType: 'image/png', data: PNG }],
    });
    assert.deepEqual(!v.continue && [v.attachments, v.firstAttachmentType], [
      [{ type: 'image', source: { data: PNG, mediaType: 'image/png' } }],
      'hologram',
    ]);
    const untyped = value({ message: 'm', attachments: ['x'] });
    assert.deepEqual(!untyped.continue && [untyped.attachments, untyped.firstAttachmentType], [[], null]);
    const none = value({ message: 'm', attachments: [] });
    assert.equal(!none.continue && 'firstAttachmentType' in none, false);
  });

  it('overrides: validated against the whitelist, with the overrides. prefix', () => {
    failsOn({ message: 'm', overrides: { top_p: 0.5 } }, 'overrides.top_p');
    failsOn({ message: 'm', overrides: { reasoning: 'high' } }, 'overrides.reasoning');
    failsOn({ message: 'm', overrides: 'fast' }, 'overrides');
    assert.deepEqual(
      value({ message: 'm', overrides: { model: 'x', reasoning: { effort: 'max', max_tokens: 5000 } } }).overrides,
      {
        model: 'x',
        reasoning: { effort: 'max', max_tokens: 5000 },
      },
    );
  });

  it("reports faults in the order of the spec's table", () => {
    failsOn({ attachments: 'x', overrides: { top_p: 1 } }, 'message');
    failsOn({ message: 'm', attachments: 'x', overrides: { top_p: 1 } }, 'attachments');
  });
});
