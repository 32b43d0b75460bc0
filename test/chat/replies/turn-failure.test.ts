// Failed turns (issue 27): each harness's own record of a turn that failed, read from what the pinned CLIs wrote
// (fixtures recorded against a scripted server answering 401 / 500, and a Claude with no key), and the note Leo
// posts for it.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseRolloutLines } from '../../../src/harnesses/codex/rollout.js';
import { captureReplies, type CaptureResult } from '../../../src/chat/replies/reply-capture.js';
import { readTranscriptTail, type TranscriptEntry } from '../../../src/harnesses/claude/transcript.js';
import { failedTurnNote, failureReason, INTERRUPTED_NOTE } from '../../../src/chat/replies/turn-failure.js';
import {
  transcriptEntries,
  transcriptLines,
  type OcMessage,
} from '../../../src/harnesses/opencode/opencode-plugin/session-log.js';
import { parseTranscriptLines } from '../../../src/harnesses/claude/transcript.js';
import { transcriptFixture as fixture } from '../../helpers/transcripts.js';
import fs from 'node:fs';

const capture = (entries: readonly TranscriptEntry[], prompt: string, ended: 'last' | 'none' = 'none'): CaptureResult =>
  captureReplies(entries, [{ prompt }], { ended })[0]!.result;

describe('Claude: a turn that failed (isApiErrorMessage)', () => {
  it('no key: the turn failed with "Not logged in", not a reply', async () => {
    const entries = await readTranscriptTail(fixture('not-logged-in.jsonl'));
    assert.ok(!entries.some((e) => e.kind === 'assistant_text'), 'Claude’s error text is no assistant answer');
    // Recorded end: the failure bounds the turn, so even a check without a Stop (catch-up) settles it.
    const result = capture(entries, '[Leo Chat] hello there');
    assert.deepEqual(result, {
      kind: 'failed',
      text: 'Not logged in · Please run /login',
      error: 'authentication_failed',
    });
    assert.equal(
      failedTurnNote(result as { text: string }),
      'Could not answer: not logged in — check its environment or run /login\n\nNot logged in · Please run /login',
    );
  });

  it('the provider answered 401: a refused request, check the key', async () => {
    const result = capture(await readTranscriptTail(fixture('api-error-401.jsonl')), '[Leo Chat] hello there');
    assert.equal(result.kind, 'failed');
    assert.equal(
      failureReason(result as { text: string; error: string }),
      'the provider refused the request (401 Unauthorized) — check its API key',
    );
  });

  it('the provider answered 500: its error, try again', async () => {
    const result = capture(await readTranscriptTail(fixture('api-error-500.jsonl')), '[Leo Chat] hello there');
    assert.equal(result.kind, 'failed');
    assert.match((result as { text: string }).text, /^API Error: 500 Internal server error/);
    assert.equal(failureReason(result as { text: string }), 'the provider had an error (500) — try again in a moment');
  });
});

describe('Codex: a turn the provider refused (task_complete with error)', () => {
  it('401: failed, with the status and Codex’s words; the turn’s end is recorded', async () => {
    const entries = await readTranscriptTail(fixture('codex-tui-401.jsonl'), { parse: parseRolloutLines });
    const result = capture(entries, '[Leo Chat] hello codex');
    assert.equal(result.kind, 'failed');
    const failure = result as { text: string; error?: string };
    assert.equal(failure.error, 'http_401');
    assert.match(failure.text, /^unexpected status 401 Unauthorized: Incorrect API key provided/);
    assert.equal(failureReason(failure), 'the provider refused the request (401 Unauthorized) — check its API key');
  });
});

describe('opencode: a turn the provider refused (the step’s error, after its retries)', () => {
  it('401: the transcript Leo’s plugin writes says failed, with the status and the provider’s words', () => {
    // session.messages as opencode 1.18.33 returned it at session.error / session.idle, behind a scripted 401.
    const file = fixture('../opencode/session-401.json');
    const messages = JSON.parse(fs.readFileSync(file, 'utf8')) as OcMessage[];
    const entries = parseTranscriptLines(transcriptLines(transcriptEntries(messages, 'leo')).split('\n'));
    const result = capture(entries, '[Leo Chat] [probe] hello');
    assert.deepEqual(result, {
      kind: 'failed',
      text: 'Incorrect API key provided: sk-test-***1234.',
      error: 'http_401',
    });
    assert.equal(
      failureReason(result as { text: string }),
      'the provider refused the request (401 Unauthorized) — check its API key',
    );
  });
});

describe('the note', () => {
  it('blanks secrets in the harness’s words and cuts them short', () => {
    const key = 'sk-proj-abcdefghijklmnopqrstuvwxyz0123456789';
    const note = failedTurnNote({ text: `401 Unauthorized: Incorrect API key provided: ${key}. ${'x'.repeat(600)}` });
    assert.ok(!note.includes(key));
    assert.ok(note.length < 450, `${note.length} chars`);
    assert.match(note, /^Could not answer: the provider refused the request \(401 Unauthorized\)/);
  });

  it('names overload, rate limits and unknown failures plainly', () => {
    assert.equal(
      failureReason({ text: 'API Error: 529 Overloaded.' }),
      'the provider is overloaded — try again in a moment',
    );
    assert.equal(
      failureReason({ text: 'Rate limit reached for requests' }),
      'the provider is rate limiting it — try again later',
    );
    assert.equal(failureReason({ text: 'something odd' }), 'the turn failed');
    assert.equal(INTERRUPTED_NOTE, 'Interrupted — no reply to this message');
  });

  it('a failure the harness recovered from (an answer after it) is no failure', () => {
    const entries: TranscriptEntry[] = [
      { kind: 'user_prompt', text: '[Leo Chat] hi' },
      { kind: 'turn_error', text: 'API Error: 500' },
      { kind: 'assistant_text', text: 'Hello.' },
    ];
    assert.deepEqual(capture(entries, '[Leo Chat] hi', 'last'), { kind: 'reply', text: 'Hello.' });
  });
});
