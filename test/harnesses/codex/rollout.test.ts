import assert from 'node:assert/strict';
import fs from 'node:fs';
import { describe, it } from 'node:test';
import { CODEX_TURN_END, parseRolloutLines } from '../../../src/harnesses/codex/rollout.js';
import { captureReplies } from '../../../src/chat/replies/reply-capture.js';
import { INTERRUPTED, readTranscriptTail } from '../../../src/harnesses/claude/transcript.js';
import { transcriptFixture as fixture } from '../../helpers/transcripts.js';

const read = (name: string) => readTranscriptTail(fixture(name), { parse: parseRolloutLines });
const lines = (name: string) => fs.readFileSync(fixture(name), 'utf8').split('\n').filter(Boolean);
const reply = (entries: Parameters<typeof captureReplies>[0], prompt: string, promptId?: string) =>
  captureReplies(entries, [{ prompt }], promptId ? { ended: { promptId } } : {})[0]!.result;

const TUI_TURN = '01a23307-0286-7380-9b27-b96b9fc55f58';

describe('parseRolloutLines over recorded codex 0.171.0 rollouts', () => {
  it('a TUI turn: the typed prompt once (no context blocks), the answer, the recorded end', async () => {
    const entries = await read('codex-tui-reply.jsonl');
    const prompts = entries.filter((e) => e.kind === 'user_prompt');
    assert.deepEqual(
      prompts.map((e) => [e.text, e.promptId, e.turnIndex]),
      [['[Leo Chat] what is 6 x 7', TUI_TURN, 0]],
    );
    assert.deepEqual(
      entries.filter((e) => e.kind === 'assistant_text').map((e) => [e.text, e.messageId]),
      [['It is 42.', 'msg_leo2']],
    );
    assert.equal(entries.at(-1)?.detail, CODEX_TURN_END);
    assert.deepEqual(reply(entries, '[Leo Chat] what is 6 x 7'), { kind: 'reply', text: 'It is 42.' });
  });

  it('the Stop’s turn_id names the turn even before its end is written (the Stop hook runs first)', async () => {
    const running = parseRolloutLines(lines('codex-tui-reply.jsonl').filter((l) => !l.includes('"task_complete"')));
    assert.deepEqual(captureReplies(running, [{ prompt: '[Leo Chat] what is 6 x 7' }], { ended: 'none' })[0]!.result, {
      kind: 'pending',
    });
    assert.deepEqual(reply(running, '[Leo Chat] what is 6 x 7', TUI_TURN), { kind: 'reply', text: 'It is 42.' });
  });

  it('an MCP call is named as Claude names it; a call Codex could not make does not count as posted', async () => {
    const entries = await read('codex-exec-post-unsupported.jsonl');
    const call = entries.find((e) => e.kind === 'tool_use');
    assert.deepEqual([call?.toolName, call?.toolUseId], ['mcp__leo__leo_chat_post', 'call_p']);
    const result = entries.find((e) => e.kind === 'tool_result');
    assert.deepEqual([result?.isError, result?.toolUseId], [true, 'call_p']);
    assert.deepEqual(reply(entries, '[Leo Chat] post hi'), { kind: 'reply', text: 'Posted it.' });
  });

  it('a post that went through: its closing text kept only in case the post is not in the thread', () => {
    const posted = lines('codex-exec-post-unsupported.jsonl').map((l) =>
      l.replace('"output":"unsupported call: mcp__leoleo_chat_post"', '"output":"{\\"id\\":\\"01M8\\"}"'),
    );
    assert.deepEqual(reply(parseRolloutLines(posted), '[Leo Chat] post hi'), { kind: 'posted', text: 'Posted it.' });
  });
});

describe('parseRolloutLines on lines shaped as codex writes them', () => {
  const at = (n: number) => `2026-12-01T19:00:0${n}.000Z`;
  const user = (n: number, text: string, turn: string) =>
    JSON.stringify({
      timestamp: at(n),
      type: 'event_msg',
      payload: {
        type: 'item_completed',
        turn_id: turn,
        item: { type: 'UserMessage', id: `u${n}`, content: [{ type: 'text', text, text_elements: [] }] },
      },
    });
  const said = (n: number, text: string) =>
    JSON.stringify({
      timestamp: at(n),
      type: 'response_item',
      payload: { type: 'message', role: 'assistant', id: `m${n}`, content: [{ type: 'output_text', text }] },
    });
  const event = (n: number, type: string, turn: string) =>
    JSON.stringify({ timestamp: at(n), type: 'event_msg', payload: { type, turn_id: turn } });

  it('a message typed while the turn ran joined it: taken over', () => {
    const entries = parseRolloutLines([
      user(1, '[Leo Chat] first', 't1'),
      user(2, 'a typed steer', 't1'),
      said(3, 'Both done.'),
      event(4, 'task_complete', 't1'),
    ]);
    assert.deepEqual(reply(entries, '[Leo Chat] first'), { kind: 'none', reason: 'taken_over' });
  });

  it('the next turn’s prompt ends the turn; an aborted turn answered nothing; an empty one nothing either', () => {
    const entries = parseRolloutLines([
      user(1, '[Leo Chat] one', 't1'),
      said(2, 'One.'),
      user(3, '[Leo Chat] two', 't2'),
      said(4, 'Half an answer'),
      event(5, 'turn_aborted', 't2'),
      user(6, '[Leo Chat] three', 't3'),
      said(7, '   '),
      event(8, 'task_complete', 't3'),
    ]);
    assert.equal(entries.find((e) => e.detail === INTERRUPTED)?.kind, 'other');
    const results = captureReplies(entries, [
      { prompt: '[Leo Chat] one' },
      { prompt: '[Leo Chat] two' },
      { prompt: '[Leo Chat] three' },
    ]).map((c) => c.result);
    assert.deepEqual(results, [
      { kind: 'reply', text: 'One.' },
      { kind: 'none', reason: 'interrupted' },
      { kind: 'none', reason: 'empty' },
    ]);
  });

  it('skips what it cannot read, never throws', () => {
    const entries = parseRolloutLines([
      '',
      'not json',
      '{"type":"response_item"}',
      '{"type":"event_msg","payload":{"type":"item_completed","item":{"type":"UserMessage","content":"x"}}}',
      JSON.stringify({ type: 'response_item', payload: { type: 'function_call', name: 7 } }),
      '{"type":"session_meta","payload":{"id":"s"}}',
    ]);
    assert.ok(entries.every((e) => e.kind === 'other'));
  });
});
