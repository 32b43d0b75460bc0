import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { noSpeech } from '../../src/wire/no-speech.js';

describe('noSpeech: a transcript with no words', () => {
  it('empty, blank or only whisper non-speech markers has no words', () => {
    for (const t of ['', '  \n', '[BLANK_AUDIO]', ' [ Silence ] ', '(silence)', '[MUSIC] *wind* .', '…'])
      assert.equal(noSpeech(t), true, JSON.stringify(t));
  });
  it('any word or number, around a marker or not, is speech', () => {
    for (const t of ['Ship it.', '[BLANK_AUDIO] ok', '42', 'Привет', '(laughs) yes'])
      assert.equal(noSpeech(t), false, JSON.stringify(t));
  });
});
