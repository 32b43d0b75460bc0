import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, describe, it } from 'node:test';
import { AnthropicServer, isAgentTurn, userPrompts } from '../helpers/anthropic-server.js';
import { postSse, type SseAnswer } from '../helpers/sse-post.js';

const TOOLS = [{ name: 'Bash', description: 'run', input_schema: { type: 'object' } }];
const turn = (text: string, extra: object = {}) => ({
  model: 'claude-test-model',
  stream: true,
  tools: TOOLS,
  messages: [{ role: 'user', content: [{ type: 'text', text }] }],
  ...extra,
});

describe('AnthropicServer', () => {
  let api: AnthropicServer;
  before(async () => {
    api = await AnthropicServer.start();
  });
  after(() => api.close());

  it('streams a text reply with the real event sequence, and every data payload names its own event', async () => {
    api.enqueue({ text: 'Hello, world!', chunks: 3 });
    const r = await postSse(`${api.url}/v1/messages?beta=true`, turn('hi'));
    assert.equal(r.status, 200);
    assert.match(r.contentType, /^text\/event-stream/);
    assert.deepEqual(
      r.events.map((e) => e.event),
      [
        'message_start',
        'ping',
        'content_block_start',
        'content_block_delta',
        'content_block_delta',
        'content_block_delta',
        'content_block_stop',
        'message_delta',
        'message_stop',
      ],
    );
    for (const e of r.events) assert.equal(e.data.type, e.event);
    const start = r.events[0]!.data.message;
    assert.equal(start.role, 'assistant');
    assert.equal(start.model, 'claude-test-model');
    assert.deepEqual(start.content, []);
    assert.equal(typeof start.usage.input_tokens, 'number');
    const text = r.events
      .filter((e) => e.event === 'content_block_delta')
      .map((e) => e.data.delta.text)
      .join('');
    assert.equal(text, 'Hello, world!');
    assert.deepEqual(r.events.at(-2)!.data.delta, { stop_reason: 'end_turn', stop_sequence: null });
    assert.equal(typeof r.events.at(-2)!.data.usage.output_tokens, 'number');
  });

  it('streams text then a tool_use block whose input_json_delta pieces rebuild the input', async () => {
    const input = { command: 'echo hi', description: 'say hi' };
    api.enqueue({ text: 'Running it.', toolUse: { name: 'Bash', input, id: 'toolu_fixed' } });
    const r = await postSse(`${api.url}/v1/messages?beta=true`, turn('run it'));
    const starts = r.events.filter((e) => e.event === 'content_block_start').map((e) => e.data);
    assert.deepEqual(starts[1], {
      type: 'content_block_start',
      index: 1,
      content_block: { type: 'tool_use', id: 'toolu_fixed', name: 'Bash', input: {} },
    });
    const json = r.events
      .filter((e) => e.event === 'content_block_delta' && e.data.index === 1)
      .map((e) => {
        assert.equal(e.data.delta.type, 'input_json_delta');
        return e.data.delta.partial_json;
      })
      .join('');
    assert.deepEqual(JSON.parse(json), input);
    assert.equal(r.events.find((e) => e.event === 'message_delta')!.data.delta.stop_reason, 'tool_use');
  });

  it('spreads a delayed reply over its deltas; message_start goes out at once', async () => {
    api.enqueue({ text: 'abcd', chunks: 4, delayMs: 400 });
    const t0 = Date.now();
    const r = await postSse(`${api.url}/v1/messages`, turn('slow'));
    assert.ok(r.events[0]!.at - t0 < 200, 'message_start is immediate');
    const deltas = r.events.filter((e) => e.event === 'content_block_delta');
    assert.ok(deltas.at(-1)!.at - t0 >= 380, 'the last delta waits for the delay');
    assert.ok(deltas.at(-1)!.at - deltas[0]!.at >= 200, 'the deltas are spread out, not sent together');
  });

  it('side requests (no tools) get the default reply and leave the queue for the agent turns', async () => {
    api.enqueue({ text: 'scripted' });
    const side = await postSse(`${api.url}/v1/messages?beta=true`, { ...turn('make a title'), tools: undefined });
    const agent = await postSse(`${api.url}/v1/messages?beta=true`, turn('real prompt'));
    const textOf = (r: SseAnswer) =>
      r.events
        .filter((e) => e.event === 'content_block_delta')
        .map((e) => e.data.delta.text)
        .join('');
    assert.equal(textOf(side), 'OK.');
    assert.equal(textOf(agent), 'scripted');
  });

  it('answers non-streaming requests, count_tokens and model lists; other paths get an API-shaped 404', async () => {
    api.enqueue({ text: 'plain' });
    const plain = await postSse(`${api.url}/v1/messages`, turn('x', { stream: false }));
    assert.equal(plain.json.type, 'message');
    assert.deepEqual(plain.json.content, [{ type: 'text', text: 'plain' }]);
    assert.equal(plain.json.stop_reason, 'end_turn');
    const count = await postSse(`${api.url}/v1/messages/count_tokens?beta=true`, turn('x'));
    assert.equal(typeof count.json.input_tokens, 'number');
    const models = await new Promise<any>((resolve, reject) =>
      http
        .get(`${api.url}/v1/models`, (res) => {
          let text = '';
          res.on('data', (c) => (text += c));
          res.on('end', () => resolve(JSON.parse(text)));
        })
        .on('error', reject),
    );
    assert.equal(models.data[0].type, 'model');
    const missing = await postSse(`${api.url}/v1/nope`, {});
    assert.equal(missing.status, 404);
    assert.equal(missing.json.type, 'error');
    assert.equal(missing.json.error.type, 'not_found_error');
    assert.ok(api.endpoints().includes('POST /v1/nope'));
  });

  it('a script function can answer any request, side requests included', async () => {
    const scripted = await AnthropicServer.start({
      script: (req, { sideRequest }) => ({ text: `${sideRequest ? 'side' : 'turn'}:${userPrompts(req.body)[0]}` }),
    });
    try {
      const r = await postSse(`${scripted.url}/v1/messages`, turn('ping', { stream: false, tools: [] }));
      assert.equal(r.json.content[0].text, 'side:ping');
    } finally {
      await scripted.close();
    }
  });

  it('close() ends a reply still being delayed instead of waiting for it', async () => {
    const slow = await AnthropicServer.start({ replies: [{ text: 'never', delayMs: 60_000 }] });
    const pending = postSse(`${slow.url}/v1/messages`, turn('wait')).catch(() => null);
    await slow.waitForRequest((r) => r.path === '/v1/messages');
    const t0 = Date.now();
    await slow.close();
    await pending;
    assert.ok(Date.now() - t0 < 2000);
  });
});

describe('userPrompts / isAgentTurn', () => {
  it('keeps what the user typed, without system-reminder blocks, system messages or tool results', () => {
    const body = {
      tools: TOOLS,
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: '<system-reminder>\n# Environment\nstuff\n</system-reminder>' },
            { type: 'text', text: 'Fix the bug\n<system-reminder>today is Monday</system-reminder>' },
          ],
        },
        { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'Bash', input: {} }] },
        { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'ok' }] },
        { role: 'system', content: 'appended by recent versions' },
        { role: 'user', content: 'and a plain string turn' },
      ],
    };
    assert.deepEqual(userPrompts(body), ['Fix the bug', 'and a plain string turn']);
    assert.equal(isAgentTurn(body), true);
    assert.equal(isAgentTurn({ messages: [] }), false);
    assert.deepEqual(userPrompts(undefined), []);
  });
});
