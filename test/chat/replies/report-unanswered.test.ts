import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  failedTurnNote,
  failureReason,
  INTERRUPTED_NOTE,
  reportUnanswered,
} from '../../../src/chat/replies/turn-failure.js';

describe('reportUnanswered', () => {
  const recorder = () => {
    const said: string[] = [];
    const report = reportUnanswered({
      note: (agent, text) => said.push(`note ${agent}: ${text}`),
      failed: (agent, reason) => said.push(`failed ${agent}: ${reason}`),
      attention: (agent, text) => said.push(`push ${agent}: ${text}`),
    });
    return { said, report };
  };

  it('notes an interrupted turn, and nothing more', () => {
    const { said, report } = recorder();
    report('den', 'm1', 'interrupted');
    assert.deepEqual(said, [`note den: ${INTERRUPTED_NOTE}`]);
  });

  it('notes a failed turn, sets its turn error, then asks for attention', () => {
    const { said, report } = recorder();
    const failure = { text: 'API Error: 401', error: 'authentication_failed' };
    report('den', 'm1', { failure });
    const reason = failureReason(failure);
    assert.deepEqual(said, [
      `note den: ${failedTurnNote(failure)}`,
      `failed den: ${reason}`,
      `push den: Could not answer: ${reason}`,
    ]);
  });
});
