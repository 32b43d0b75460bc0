import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { functionCallOutput, ResponsesServer, userPrompts } from '../helpers/responses-server.js';
import { postSse } from '../helpers/sse-post.js';

const turn = (text: string) => ({
  model: 'gpt-test',
  stream: true,
  input: [
    { type: 'message', role: 'developer', content: [{ type: 'input_text', text: 'You are a coding agent.' }] },
    {
      type: 'message',
      role: 'user',
      content: [{ type: 'input_text', text: '<environment_context>\n  <cwd>/w</cwd>\n</environment_context>' }],
    },
    { type: 'message', role: 'user', content: [{ type: 'input_text', text }] },
  ],
});

describe('ResponsesServer', () => {
  let api: ResponsesServer;
  before(async () => {
    api = await ResponsesServer.start();
  });
  after(() => api.close());

  it('streams a text reply in the real event order; the done item and response.completed carry the whole text', async () => {
    api.enqueue({ text: 'Hello, world!', chunks: 3 });
    const r = await postSse(`${api.baseUrl}/responses`, turn('hi'));
    assert.equal(r.status, 200);
    assert.deepEqual(
      r.events.map((e) => e.event),
      [
        'response.created',
        'response.in_progress',
        'response.output_item.added',
        'response.content_part.added',
        'response.output_text.delta',
        'response.output_text.delta',
        'response.output_text.delta',
        'response.output_text.done',
        'response.content_part.done',
        'response.output_item.done',
        'response.completed',
      ],
    );
    r.events.forEach((e, i) => {
      assert.equal(e.data.type, e.event);
      assert.equal(e.data.sequence_number, i);
    });
    const deltas = r.events.filter((e) => e.event === 'response.output_text.delta').map((e) => e.data.delta);
    assert.equal(deltas.join(''), 'Hello, world!');
    const done = r.events.find((e) => e.event === 'response.output_item.done')!.data.item;
    assert.deepEqual(done.content, [{ type: 'output_text', text: 'Hello, world!', annotations: [] }]);
    const completed = r.events.at(-1)!.data.response;
    assert.equal(completed.status, 'completed');
    assert.equal(completed.id, r.events[0]!.data.response.id);
    assert.deepEqual(completed.output, [done]);
    assert.equal(typeof completed.usage.total_tokens, 'number');
  });

  it('streams a function call whose argument deltas rebuild the arguments, with the namespace an MCP tool needs', async () => {
    const args = { message: 'hi' };
    api.enqueue({ functionCall: { name: 'chat_send', arguments: args, namespace: 'mcp__leo', callId: 'call_1' } });
    const r = await postSse(`${api.baseUrl}/responses`, turn('use the tool'));
    const json = r.events
      .filter((e) => e.event === 'response.function_call_arguments.delta')
      .map((e) => e.data.delta)
      .join('');
    assert.deepEqual(JSON.parse(json), args);
    const item = r.events.find((e) => e.event === 'response.output_item.done')!.data.item;
    assert.equal(item.type, 'function_call');
    assert.equal(item.namespace, 'mcp__leo');
    assert.equal(item.call_id, 'call_1');
    assert.equal(item.name, 'chat_send');
  });

  it('spreads a delayed reply over its deltas; response.created goes out at once', async () => {
    api.enqueue({ text: 'abcd', chunks: 4, delayMs: 400 });
    const t0 = Date.now();
    const r = await postSse(`${api.baseUrl}/responses`, turn('slow'));
    assert.ok(r.events[0]!.at - t0 < 200, 'response.created is immediate');
    const deltas = r.events.filter((e) => e.event === 'response.output_text.delta');
    assert.ok(deltas.at(-1)!.at - t0 >= 380, 'the last delta waits for the delay');
  });

  it('records the typed prompts, without the context Codex sends as user messages', async () => {
    await postSse(`${api.baseUrl}/responses`, turn('[Leo Chat] do the thing'));
    assert.ok(api.prompts().includes('[Leo Chat] do the thing'));
    assert.deepEqual(userPrompts(turn('typed')), ['typed']);
    const withOutput = { input: [{ type: 'function_call_output', call_id: 'c', output: 'done' }] };
    assert.equal(functionCallOutput(withOutput, 'c'), 'done');
  });
});
