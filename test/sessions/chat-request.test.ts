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

  it('refuses a body that is not an object', () => {
    for (const b of [null, undefined, [], 'hi', 1]) failsOn(b, 'body');
  });

  it('message: required unless continue, a string, not blank without attachments', () => {
    failsOn({}, 'message');
    failsOn({ sessionId: 's' }, 'message');
    failsOn({ message: 5 }, 'message');
    failsOn({ message: null }, 'message');
    failsOn({ message: '  \n' }, 'message');
    failsOn({ message: '', attachments: [{ type: 'hologram' }] }, 'message');
    const withImage = value({ message: '', attachments: [{ type: 'image', url: 'https://example.com/a.png' }] });
    assert.equal(!withImage.continue && withImage.attachments.length, 1);
  });

  it('sessionId, sse, fireAndForget and continue must have their types', () => {
    failsOn({ message: 'm', sessionId: 7 }, 'sessionId');
    failsOn({ message: 'm', sessionId: '' }, 'sessionId');
    failsOn({ message: 'm', sessionId: null }, 'sessionId');
    failsOn({ message: 'm', sse: 'true' }, 'sse');
    failsOn({ message: 'm', fireAndForget: 1 }, 'fireAndForget');
    failsOn({ message: 'm', continue: 'yes' }, 'continue');
  });

  it('continue: true needs a sessionId and takes neither message nor attachments', () => {
    failsOn({ continue: true }, 'sessionId');
    failsOn({ continue: true, message: 'again' }, 'sessionId');
    assert.match(failsOn({ continue: true, sessionId: 's', message: 'again' }, 'message'), /continue/);
    failsOn({ continue: true, sessionId: 's', attachments: [] }, 'attachments');
    assert.deepEqual(value({ continue: true, sessionId: 's', overrides: { temperature: 0 } }), {
      response: 'json',
      overrides: { temperature: 0 },
      continue: true,
      sessionId: 's',
    });
  });

  it('sse streams, fireAndForget detaches, and fireAndForget wins when both are set', () => {
    assert.equal(value({ message: 'm', sse: true }).response, 'sse');
    assert.equal(value({ message: 'm', sse: false }).response, 'json');
    assert.equal(value({ message: 'm', fireAndForget: true }).response, 'fireAndForget');
    assert.equal(value({ message: 'm', fireAndForget: true, sse: true }).response, 'fireAndForget');
    assert.equal(value({ message: 'm', fireAndForget: false, sse: true }).response, 'sse');
    assert.equal(value({ continue: true, sessionId: 's', fireAndForget: true }).response, 'fireAndForget');
  });

  it('refuses unknown top-level fields, naming them and listing the accepted ones', () => {
    const message = failsOn({ message: 'm', sesionId: 's' }, 'sesionId');
    assert.match(message, /unknown field/);
    assert.match(message, /message, sessionId, sse, fireAndForget, continue, attachments, overrides/);
    // Even next to another fault: the typo usually explains it.
    failsOn({ sesionId: 's', continue: true }, 'sesionId');
    failsOn({ message: 'm', top_p: 1 }, 'top_p');
  });

  it('attachments: must be an array; item faults carry their index', () => {
    failsOn({ message: 'm', attachments: {} }, 'attachments');
    failsOn({ message: 'm', attachments: null }, 'attachments');
    failsOn(
      {
        message: 'm',
        attachments: [
          { type: 'image', url: 'https://e.com/a.png' },
          { type: 'image', data: PNG },
        ],
      },
      'attachments[1].mediaType',
    );
    const v = value({
      message: 'm',
      attachments: [{ type: 'image', mediaType: 'image/png', data: PNG }, { type: 'hologram' }],
    });
    assert.deepEqual(!v.continue && v.attachments, [{ type: 'image', source: { data: PNG, mediaType: 'image/png' } }]);
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
