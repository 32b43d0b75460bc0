import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { PROVIDER_TEXT_CHARS, redactProviderText } from '../../src/core/provider-error.js';

describe('provider error text', () => {
  it('blanks the key it was sent and anything shaped like a credential, and keeps the words', () => {
    const out = redactProviderText(
      'Incorrect API key provided: my-custom-key-value. Also sk-proj-abcDEF123456 and AIzaSyA1234567890abcdefghij, ' +
        'AKIAABCDEFGHIJKLMNOP, leo_op_Zm9vYmFyYmF6cXV4, Authorization: Bearer abc.def.ghi; id 8f3a9c2e71b64d5aa0c1e9f2',
      ['my-custom-key-value'],
    );
    assert.equal(
      out,
      'Incorrect API key provided: [redacted]. Also [redacted] and [redacted], [redacted], [redacted], ' +
        'Authorization: [redacted] id [redacted]',
    );
  });

  it('leaves ordinary words and numbers alone and cuts long text', () => {
    assert.equal(
      redactProviderText('model gpt-4o-mini is overloaded, retry in 20 seconds'),
      'model gpt-4o-mini is overloaded, retry in 20 seconds',
    );
    const long = redactProviderText('word '.repeat(200));
    assert.equal([...long].length, PROVIDER_TEXT_CHARS + 1);
    assert.ok(long.endsWith('…'));
  });
});
