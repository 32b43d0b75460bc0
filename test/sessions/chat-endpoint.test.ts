// The agent chat endpoint in the real daemon against the scripted OpenAI-compatible server (agent-chat-endpoint.md):
// JSON, SSE and fire-and-forget turns, the session routes, /ws, the spec's error codes, and @-mentions.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import WebSocket from 'ws';
import type { ManualClock } from '../../src/core/clock.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { request } from '../helpers/http.js';
import { OpenAiServer, lastUserText } from '../helpers/openai-server.js';
import { until } from '../helpers/wait.js';

interface SseEvent {
  event: string;
  data: any;
}

/** POSTs a chat call with `sse: true` and collects every event until the server ends the stream. */
function chatSse(port: number, token: string, agent: string, body: object, onEvent?: (e: SseEvent) => void) {
  return new Promise<{ status: number; events: SseEvent[] }>((resolve, reject) => {
    const payload = JSON.stringify({ ...body, sse: true });
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: `/agents/${agent}/chat`,
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(payload),
        },
      },
      (res) => {
        const events: SseEvent[] = [];
        let buf = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => {
          buf += c;
          let i: number;
          while ((i = buf.indexOf('\n\n')) >= 0) {
            const frame = buf.slice(0, i);
            buf = buf.slice(i + 2);
            const ev = /^event: (.*)$/m.exec(frame)?.[1];
            const data = /^data: (.*)$/m.exec(frame)?.[1];
            if (ev && data) {
              const e = { event: ev, data: JSON.parse(data) };
              events.push(e);
              onEvent?.(e);
            }
          }
        });
        res.on('end', () => resolve({ status: res.statusCode ?? 0, events }));
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

describe('POST /agents/:name/chat and the session routes', () => {
  let t: TestDaemon;
  let llm: OpenAiServer;
  let workspace = '';
  const chat = (agent: string, body: unknown) => t.op('POST', `/agents/${agent}/chat`, body);

  before(async () => {
    llm = await OpenAiServer.start({ defaultReply: { text: 'Hello there, friend.' } });
    t = await startTestDaemon({
      config: `
environments:
  keys: { OPENAI_KEY: sk-test-123 }
templates:
  bot:
    harness: shell
    command: "exec cat"
    environments: [keys]
    chat: { enabled: true, engine: openai, base_url: "${llm.baseUrl}", api_key_env: OPENAI_KEY, model: gpt-test, price: { input: 1, output: 2 } }
  plain: { harness: shell, command: "exec cat" }
  cc: { harness: shell, command: "exec cat", chat: { enabled: true, engine: claude-cli } }
  tight:
    harness: shell
    command: "exec cat"
    environments: [keys]
    chat: { enabled: true, engine: openai, base_url: "${llm.baseUrl}", api_key_env: OPENAI_KEY, model: gpt-test, budget: { max_tokens: 50 }, reasoning: { effort: low } }
`,
    });
    for (const [template, name] of [
      ['bot', 'bot'],
      ['plain', 'plain'],
      ['cc', 'cc'],
      ['tight', 'tight'],
    ])
      assert.equal((await t.op('POST', '/api/v1/agents/spawn', { template, name })).status, 201);
    workspace = (await t.op('GET', '/api/v1/agents/bot')).json.data.workspace;
  });
  after(async () => {
    await t.stop();
    await llm.close();
  });

  it('JSON mode: a reply with usage and cost; the next turn replays the history (multi-turn memory)', async () => {
    llm.enqueue({ text: 'Nice to meet you, Alice.', usage: { prompt_tokens: 1000, completion_tokens: 500 } });
    const first = await chat('bot', { message: 'My name is Alice.' });
    assert.equal(first.status, 200, first.text);
    assert.match(first.json.sessionId, /^sess_[0-9a-f]{16}$/);
    assert.deepEqual(first.json.message, { role: 'assistant', content: 'Nice to meet you, Alice.' });
    assert.deepEqual(first.json.tokenUsage, { input: 1000, output: 500, cache: 0, cost: 0.002 });
    assert.deepEqual(first.json.toolCalls, []);
    const sent = llm.completionRequests().at(-1)!;
    assert.equal(sent.headers.authorization, 'Bearer sk-test-123');
    assert.equal(sent.body.model, 'gpt-test');

    llm.enqueue({ text: 'Your name is Alice.' });
    const second = await chat('bot', { message: 'What is my name?', sessionId: first.json.sessionId });
    assert.equal(second.json.message.content, 'Your name is Alice.');
    const history = llm
      .completionRequests()
      .at(-1)!
      .body.messages.map((m: any) => [m.role, m.content]);
    assert.deepEqual(history.slice(-3), [
      ['user', 'My name is Alice.'],
      ['assistant', 'Nice to meet you, Alice.'],
      ['user', 'What is my name?'],
    ]);
  });

  it('SSE mode: a two-iteration tool turn streams every event; message events equal GET /sessions/:id/messages', async () => {
    fs.writeFileSync(path.join(workspace, 'notes.txt'), 'remember the milk');
    llm.enqueue(
      {
        toolCalls: [{ name: 'read_file', arguments: { path: 'notes.txt' }, fragments: 4 }],
        reasoning: 'I should read it.',
      },
      { text: 'The note says: remember the milk.', chunks: 5 },
    );
    const { status, events } = await chatSse(t.daemon.port, t.daemon.operatorToken, 'bot', {
      message: 'What does my note say?',
    });
    assert.equal(status, 200);
    const names = events.map((e) => e.event);
    assert.ok(
      names.includes('inference.tool') && names.includes('thinking.chunk') && names.includes('inference.chunk'),
      names.join(),
    );
    assert.equal(names.at(-1), 'done');
    assert.deepEqual(events.find((e) => e.event === 'inference.tool')!.data, { name: 'read_file' });
    const messages = events.filter((e) => e.event === 'message').map((e) => e.data);
    assert.deepEqual(
      messages.map((m) => [m.role, m.finishReason ?? null]),
      [
        ['assistant', 'tool_calls'],
        ['tool', null],
        ['assistant', 'stop'],
      ],
    );
    assert.equal(messages[0].thinking_content, 'I should read it.');
    assert.match(messages[1].content, /remember the milk/);
    const done = events.at(-1)!.data;
    assert.equal(done.iterations, 2);
    assert.deepEqual(
      done.toolCalls.map((c: any) => [c.name, c.success]),
      [['read_file', true]],
    );
    assert.equal(done.session.message_count, 4);
    const stored = (await t.op('GET', `/sessions/${done.session.id}/messages`)).json.messages;
    assert.deepEqual(
      stored.filter((m: any) => m.role !== 'user'),
      messages,
    );
    assert.equal(stored[0].content, 'What does my note say?');
  });

  it('fire-and-forget answers 202 with the session id; the turn runs detached and streams on /ws', async () => {
    const ws = new WebSocket(`ws://127.0.0.1:${t.daemon.port}/ws`, {
      headers: { authorization: `Bearer ${t.daemon.operatorToken}` },
    });
    const got: any[] = [];
    ws.on('message', (m) => got.push(JSON.parse(String(m))));
    await new Promise((r) => ws.once('open', r));
    llm.enqueue({ text: 'Report kicked off.', chunkDelayMs: 30 });
    const r = await chat('bot', { message: 'Kick off the nightly report', fireAndForget: true, sse: true });
    assert.equal(r.status, 202, r.text);
    assert.equal(r.json.accepted, true);
    const id = r.json.sessionId;
    await until(
      'the detached reply',
      async () =>
        (await t.op('GET', `/sessions/${id}/messages`)).json.messages.some((m: any) => m.role === 'assistant'),
      5000,
      50,
    );
    await until('the done event on /ws', () => got.some((e) => e.sessionId === id && e.event === 'done'), 5000, 20);
    assert.ok(got.filter((e) => e.sessionId === id).every((e) => e.type === 'session.stream'));
    assert.ok(got.some((e) => e.sessionId === id && e.event === 'inference.chunk'));
    ws.close();
    const refused = await new Promise<number>((resolve) => {
      const bad = new WebSocket(`ws://127.0.0.1:${t.daemon.port}/ws`);
      bad.on('unexpected-response', (req, res) => {
        resolve(res.statusCode ?? 0);
        req.destroy();
      });
      bad.on('error', () => undefined);
    });
    assert.equal(refused, 401);
  });

  it('the spec error codes, with details.field for validation', async () => {
    const field = async (body: unknown, expected: string) => {
      const r = await chat('bot', body);
      assert.equal(r.status, 400, r.text);
      assert.equal(r.json.code, 'VALIDATION_ERROR');
      assert.equal(r.json.details.field, expected);
    };
    await field({}, 'message');
    await field({ message: 42 }, 'message');
    await field({ continue: true }, 'sessionId');
    await field({ message: 'x', attachments: 'nope' }, 'attachments');
    await field({ message: 'x', overrides: { top_p: 0.9 } }, 'overrides.top_p');
    await field({ message: 'x', overrides: { tools: [] } }, 'overrides.tools');
    const none = await chat('ghost', { message: 'hi' });
    assert.deepEqual([none.status, none.json.code], [404, 'AGENT_NOT_FOUND']);
    const plain = await chat('plain', { message: 'hi' });
    assert.deepEqual([plain.status, plain.json.code], [400, 'MODE_NOT_SUPPORTED']);
    const modality = await chat('cc', {
      message: 'look',
      attachments: [{ type: 'image', url: 'https://example.com/a.png' }],
    });
    assert.deepEqual(
      [modality.status, modality.json.code, modality.json.details],
      [400, 'MODEL_MODALITY_UNSUPPORTED', { attachmentType: 'image' }],
    );

    const s = await chat('bot', { message: 'one' });
    const id = s.json.sessionId;
    const patched = await t.op('PATCH', `/sessions/${id}`, { temperature: 0.3 });
    assert.equal(patched.status, 200, patched.text);
    const config = (await t.op('GET', `/sessions/${id}/config`)).json;
    assert.deepEqual(config.session, { temperature: 0.3 });
    assert.equal(config.effective.model, 'gpt-test');
    assert.equal(config.effective.temperature, 0.3);
    const badPatch = await t.op('PATCH', `/sessions/${id}`, { top_p: 1 });
    assert.deepEqual([badPatch.status, badPatch.json.details.field], [400, 'top_p']);
    llm.enqueue({ text: 'ok' });
    await chat('bot', { message: 'two', sessionId: id, overrides: { temperature: 1.5 } });
    assert.equal(llm.completionRequests().at(-1)!.body.temperature, 1.5, 'per call beats the session');
    assert.deepEqual(
      (await t.op('GET', `/sessions/${id}/config`)).json.session,
      { temperature: 0.3 },
      'per call is not stored',
    );
    await t.op('PATCH', `/sessions/${id}`, { status: 'closed' });
    const closed = await chat('bot', { message: 'three', sessionId: id });
    assert.deepEqual([closed.status, closed.json.code], [400, 'SESSION_CLOSED']);
    assert.equal((await t.op('GET', '/sessions/sess_nope/messages')).status, 404);
    assert.equal((await request(t.tcp, 'POST', '/agents/bot/chat', { body: { message: 'x' } })).status, 401);
  });

  it('LLM_ERROR after four failures; a cancel mid-stream ends the SSE turn as CANCELLED', async () => {
    const clock = t.clock as ManualClock;
    llm.enqueue(...Array.from({ length: 4 }, () => ({ error: { status: 500, message: 'upstream down' } })));
    const failing = chat('bot', { message: 'fail please' });
    const ticking = setInterval(() => clock.advance(5000), 20);
    const failed = await failing;
    clearInterval(ticking);
    assert.deepEqual([failed.status, failed.json.code], [500, 'LLM_ERROR']);

    const id = (await chat('bot', { message: 'start a session' })).json.sessionId;
    llm.enqueue({ text: 'a slow and long reply that will not finish', chunks: 20, chunkDelayMs: 100 });
    let chunks = 0;
    const streaming = chatSse(
      t.daemon.port,
      t.daemon.operatorToken,
      'bot',
      { message: 'talk slowly', sessionId: id },
      (e) => {
        if (e.event === 'inference.chunk') chunks++;
      },
    );
    await until('the first chunk', () => chunks > 0, 5000, 10);
    const cancel = await t.op('POST', `/sessions/${id}/cancel`);
    assert.equal(cancel.json.cancelled, true);
    const { events } = await streaming;
    const last = events.at(-1)!;
    assert.ok(
      (last.event === 'error' && last.data.code === 'CANCELLED') ||
        (last.event === 'done' && last.data.cancelled === true),
      JSON.stringify(last),
    );
  });

  it('a cancel after a tool-calling iteration has the spec shapes: JSON done.cancelled, SSE error CANCELLED (issue 29 item 10)', async () => {
    const id = (await chat('bot', { message: 'start a session' })).json.sessionId;
    // The model says something before its tool call: that text is no final reply, so the cancel still ends the turn
    // without one.
    const napping = { text: 'Let me nap first.', toolCalls: [{ name: 'sleep', arguments: { seconds: 60 } }] };
    const whileNapping = async (turn: Promise<unknown>) => {
      await until(
        'the tool-calling iteration',
        async () =>
          (await t.op('GET', `/sessions/${id}/messages`)).json.messages.at(-1)?.tool_calls?.[0]?.function.name ===
          'sleep',
        5000,
        20,
      );
      assert.equal((await t.op('POST', `/sessions/${id}/cancel`)).json.cancelled, true);
      return turn;
    };

    llm.enqueue(napping);
    const json = (await whileNapping(chat('bot', { message: 'nap', sessionId: id }))) as Awaited<
      ReturnType<typeof chat>
    >;
    assert.equal(json.status, 200, json.text);
    assert.equal(json.json.message.content, null);
    assert.deepEqual([json.json.done.cancelled, json.json.done.cancelReason], [true, 'user_cancel']);
    assert.equal(json.json.done.session.id, id);

    llm.enqueue(napping);
    const { events } = (await whileNapping(
      chatSse(t.daemon.port, t.daemon.operatorToken, 'bot', { message: 'nap again', sessionId: id }),
    )) as { events: SseEvent[] };
    assert.deepEqual(events.at(-1), {
      event: 'error',
      data: { error: 'Cancelled (user_cancel)', code: 'CANCELLED', details: { reason: 'user_cancel' } },
    });
    assert.equal(events.filter((e) => e.event === 'done').length, 0);

    // A budget stop is the same cancel, with reason budget_exceeded.
    const overBudget = {
      text: 'Looking around.',
      toolCalls: [{ name: 'list_dir', arguments: {} }],
      usage: { prompt_tokens: 400, completion_tokens: 20 },
    };
    llm.enqueue(overBudget);
    const stopped = await chat('tight', { message: 'look around' });
    assert.equal(stopped.status, 200, stopped.text);
    assert.deepEqual(
      [stopped.json.message.content, stopped.json.done.cancelled, stopped.json.done.cancelReason],
      [null, true, 'budget_exceeded'],
    );
    llm.enqueue(overBudget);
    const sse = await chatSse(t.daemon.port, t.daemon.operatorToken, 'tight', { message: 'look again' });
    assert.deepEqual(
      [sse.events.at(-1)?.event, sse.events.at(-1)?.data.code, sse.events.at(-1)?.data.details],
      ['error', 'CANCELLED', { reason: 'budget_exceeded' }],
    );
  });

  it('unknown top-level fields are ignored, not a 400 (issue 29 item 9)', async () => {
    llm.enqueue({ text: 'Fine.' });
    const r = await chat('bot', { message: 'hi', stream: true, user: 'me', metadata: { a: 1 } });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.json.message.content, 'Fine.');
    const unknown = await chat('bot', { message: 'hi', sessionId: 42 });
    assert.deepEqual([unknown.status, unknown.json.code], [404, 'SESSION_NOT_FOUND']);
  });

  it('per-call overrides are stored nowhere, the model included; reasoning comes from the template (issue 29 item 11)', async () => {
    llm.enqueue({ text: 'From the other model.' });
    const first = await chat('bot', { message: 'hi', overrides: { model: 'gpt-other' } });
    assert.equal(first.status, 200, first.text);
    assert.equal(llm.completionRequests().at(-1)!.body.model, 'gpt-other');
    assert.equal(first.json.done.model, 'gpt-other', 'done says what the turn ran on');
    const id = first.json.sessionId;
    const stored = async () => (await t.op('GET', `/sessions/${id}`)).json.session.model;
    assert.equal(await stored(), 'gpt-test', 'a new session starts on the agent model');
    llm.enqueue({ text: 'Again.' });
    await chat('bot', { message: 'again', sessionId: id, overrides: { model: 'gpt-third' } });
    assert.equal(await stored(), 'gpt-test');
    await t.op('PATCH', `/sessions/${id}`, { model: 'gpt-sticky' });
    assert.equal(await stored(), 'gpt-sticky', 'a PATCH is what makes a model stick');
    assert.deepEqual((await t.op('GET', `/sessions/${id}/config`)).json.session, { model: 'gpt-sticky' });

    const cc = await chat('cc', { message: 'hi', overrides: { temperature: 0.5 } });
    assert.deepEqual(
      [cc.status, cc.json.code, cc.json.details],
      [400, 'VALIDATION_ERROR', { field: 'overrides.temperature' }],
    );
    assert.match(cc.json.error, /claude-cli engine cannot set a temperature/);

    llm.enqueue({ text: 'Low effort.' });
    const low = await chat('tight', { message: 'think a little' });
    assert.equal(low.status, 200, low.text);
    assert.deepEqual(llm.completionRequests().at(-1)!.body.reasoning, { effort: 'low' });
    assert.deepEqual((await t.op('GET', `/sessions/${low.json.sessionId}/config`)).json.agent.reasoning, {
      effort: 'low',
    });
  });

  it('@-mentions attach workspace files, never anything in Leo state (even through a symlink)', async () => {
    fs.writeFileSync(path.join(workspace, 'plan.md'), '# The plan\nship it');
    fs.symlinkSync(path.join(t.home, 'state', 'api.token'), path.join(workspace, 'token-link'));
    llm.enqueue({ text: 'Read it.' });
    const r = await chat('bot', { message: 'Check @plan.md and @token-link, thanks.' });
    assert.equal(r.status, 200, r.text);
    const sent = lastUserText(llm.completionRequests().at(-1)!.body) ?? '';
    assert.match(sent, /<veil-attachments>/);
    assert.match(sent, /## @plan\.md \(file/);
    assert.match(sent, /ship it/);
    assert.doesNotMatch(sent, /token-link \(file/);
    assert.equal(sent.includes(t.daemon.operatorToken), false);
    const stored = (await t.op('GET', `/sessions/${r.json.sessionId}/messages`)).json.messages[0].content;
    assert.match(stored, /<veil-attachments>/);
  });
});
