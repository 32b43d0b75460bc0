import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ClaudeStreamReader } from '../../../src/harnesses/claude/chat-stream.js';

const ev = (event: object, parent: string | null = null) =>
  JSON.stringify({ type: 'stream_event', event, parent_tool_use_id: parent, session_id: 's' });

describe('ClaudeStreamReader (stream-json lines → chat events)', () => {
  it('maps a tool turn: chunks, the tool name early, the assistant message at message_stop, the tool result', () => {
    const r = new ClaudeStreamReader();
    const out = [
      JSON.stringify({ type: 'system', subtype: 'init', session_id: 'claude-1' }),
      ev({
        type: 'message_start',
        message: {
          usage: { input_tokens: 10, cache_creation_input_tokens: 2, cache_read_input_tokens: 5, output_tokens: 1 },
        },
      }),
      ev({ type: 'content_block_start', index: 0, content_block: { type: 'thinking', thinking: '' } }),
      ev({ type: 'content_block_delta', index: 0, delta: { type: 'thinking_delta', thinking: 'hmm' } }),
      ev({ type: 'content_block_delta', index: 1, delta: { type: 'text_delta', text: 'Let ' } }),
      ev({ type: 'content_block_delta', index: 1, delta: { type: 'text_delta', text: 'me.' } }),
      ev({
        type: 'content_block_start',
        index: 2,
        content_block: { type: 'tool_use', id: 't1', name: 'Bash', input: {} },
      }),
      ev({ type: 'content_block_delta', index: 2, delta: { type: 'input_json_delta', partial_json: '{"command":' } }),
      ev({ type: 'content_block_delta', index: 2, delta: { type: 'input_json_delta', partial_json: '"ls"}' } }),
      ev({ type: 'message_delta', delta: { stop_reason: 'tool_use' }, usage: { output_tokens: 7 } }),
      ev({ type: 'message_stop' }),
      ev({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: 'subagent' } }, 'toolu_parent'),
      JSON.stringify({
        type: 'user',
        parent_tool_use_id: null,
        message: {
          content: [
            { type: 'tool_result', tool_use_id: 't1', content: [{ type: 'text', text: 'a.txt' }], is_error: false },
          ],
        },
      }),
      'not json',
      JSON.stringify({
        type: 'result',
        subtype: 'success',
        is_error: false,
        result: 'Done.',
        session_id: 'claude-1',
        total_cost_usd: 0.5,
        num_turns: 2,
        usage: { input_tokens: 20, output_tokens: 9, cache_read_input_tokens: 3 },
      }),
    ].flatMap((l) => r.read(l));
    assert.deepEqual(
      out.map((i) => i.kind),
      ['init', 'thinking', 'chunk', 'chunk', 'tool', 'message', 'toolResult', 'result'],
    );
    const msg = out.find((i) => i.kind === 'message')!;
    assert.deepEqual(msg.kind === 'message' && msg.message, {
      role: 'assistant',
      content: 'Let me.',
      tool_calls: [{ id: 't1', type: 'function', function: { name: 'Bash', arguments: '{"command":"ls"}' } }],
      tool_call_id: null,
      thinking_content: 'hmm',
      thinking_tokens: null,
      finishReason: 'tool_calls',
      iteration: 1,
      tokenUsage: { input: 12, output: 7, cache: 5, cost: 0 },
    });
    const tool = out.find((i) => i.kind === 'toolResult')!;
    assert.deepEqual(tool.kind === 'toolResult' && [tool.message.content, tool.message.tool_call_id, tool.isError], [
      'a.txt',
      't1',
      false,
    ]);
    const result = out.at(-1)!;
    assert.deepEqual(result.kind === 'result' && result, {
      kind: 'result',
      ok: true,
      text: 'Done.',
      usage: { input: 20, output: 9, cache: 3, cost: 0.5 },
      sessionId: 'claude-1',
      turns: 2,
    });
  });

  it('an error result is not ok', () => {
    const [res] = new ClaudeStreamReader().read(
      JSON.stringify({ type: 'result', subtype: 'error_during_execution', is_error: true, result: 'boom' }),
    );
    assert.equal(res?.kind === 'result' && res.ok, false);
  });
});
