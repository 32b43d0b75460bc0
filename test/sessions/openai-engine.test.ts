import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, afterEach, before, describe, it } from 'node:test';
import { ManualClock } from '../../src/core/clock.js';
import type { EngineMessage, TurnEvents, TurnInput, TurnResult, TurnSettings } from '../../src/core/chat-engine.js';
import { defaultRetryDelayMs, OpenAiEngine, type OpenAiEngineOptions } from '../../src/sessions/openai-engine.js';
import type { SessionMessage } from '../../src/wire/sessions.js';
import { lastUserText, OpenAiServer, type ScriptedReply } from '../helpers/openai-server.js';
import { alive, until } from '../helpers/wait.js';

type Event =
  | { type: 'chunk'; content: string }
  | { type: 'thinking'; content: string }
  | { type: 'tool'; name: string }
  | { type: 'toolChunk'; tool_call_id: string; name: string; content: string }
  | { type: 'message'; message: SessionMessage };

/** Stands in for the session service: numbers and keeps the messages, and logs every event in order. */
function recorder() {
  const log: Event[] = [];
  const messages: SessionMessage[] = [];
  const events: TurnEvents = {
    chunk: (content) => log.push({ type: 'chunk', content }),
    thinking: (content) => log.push({ type: 'thinking', content }),
    tool: (name) => log.push({ type: 'tool', name }),
    toolChunk: (c) => log.push({ type: 'toolChunk', ...c }),
    message: (m) => {
      const row: SessionMessage = { ...m, id: messages.length + 1, session_id: 'sess_t', created_at: '' };
      messages.push(row);
      log.push({ type: 'message', message: row });
      return row;
    },
  };
  const of = <T extends Event['type']>(type: T) => log.filter((e): e is Extract<Event, { type: T }> => e.type === type);
  return { log, messages, events, of };
}

/** What the session service replays next turn: the stored rows in the engine's shape. */
function asHistory(rows: SessionMessage[]): EngineMessage[] {
  return rows.map((m) => ({
    role: m.role,
    content: m.content,
    tool_calls: m.tool_calls,
    tool_call_id: m.tool_call_id,
  }));
}

const user = (content: string): EngineMessage => ({ role: 'user', content });

describe('OpenAiEngine', () => {
  let api: OpenAiServer;
  let workspace: string;
  let rec: ReturnType<typeof recorder>;

  before(() => {
    workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'leo-openai-ws-'));
    fs.writeFileSync(path.join(workspace, 'README.md'), '# Demo\nHello from the readme.\n');
    fs.mkdirSync(path.join(workspace, 'src'));
  });
  after(() => fs.rmSync(workspace, { recursive: true, force: true }));
  afterEach(() => api?.close());

  async function serve(...replies: ScriptedReply[]): Promise<void> {
    api = await OpenAiServer.start({ replies });
  }

  function run(
    history: EngineMessage[],
    opts: { settings?: Partial<TurnSettings>; engine?: OpenAiEngineOptions; signal?: AbortSignal } = {},
  ): Promise<TurnResult> {
    rec = recorder();
    const input: TurnInput = {
      sessionId: 'sess_t',
      history,
      workspace,
      signal: opts.signal ?? new AbortController().signal,
      events: rec.events,
      settings: {
        model: 'gpt-test',
        baseUrl: api.baseUrl,
        apiKey: 'sk-test',
        maxIterations: 10,
        maxDurationMs: 30_000,
        ...opts.settings,
      },
    };
    return new OpenAiEngine({ retryDelayMs: () => 0, ...opts.engine }).runTurn(input);
  }

  it('streams the reply text in order and stores one assistant message with usage and cost', async () => {
    await serve({
      text: 'Here are the files you asked about.',
      chunks: 5,
      usage: { prompt_tokens: 1000, completion_tokens: 200, cached_tokens: 400 },
    });
    const r = await run([user('hi')], {
      settings: {
        temperature: 0.2,
        max_tokens: 512,
        reasoning: { effort: 'high' },
        price: { input: 3, output: 15, cache: 0.3 },
      },
    });

    const chunks = rec.of('chunk').map((e) => e.content);
    assert.equal(chunks.length, 5);
    assert.equal(chunks.join(''), 'Here are the files you asked about.');
    // Chunks all come before the message that stores them.
    assert.equal(rec.log.at(-1)?.type, 'message');
    const cost = (600 * 3 + 400 * 0.3 + 200 * 15) / 1e6;
    const usage = { input: 1000, output: 200, cache: 400, cost };
    assert.deepEqual(r, { content: 'Here are the files you asked about.', iterations: 1, usage, toolCalls: [] });
    const [msg] = rec.messages;
    assert.equal(rec.messages.length, 1);
    assert.equal(msg?.role, 'assistant');
    assert.equal(msg?.content, 'Here are the files you asked about.');
    assert.equal(msg?.tool_calls, null);
    assert.equal(msg?.thinking_content, null);
    assert.equal(msg?.finishReason, 'stop');
    assert.equal(msg?.iteration, 1);
    assert.deepEqual(msg?.tokenUsage, usage);

    const [req] = api.completionRequests();
    assert.equal(req?.headers.authorization, 'Bearer sk-test');
    assert.equal(req?.body.model, 'gpt-test');
    assert.equal(req?.body.stream, true);
    assert.deepEqual(req?.body.stream_options, { include_usage: true });
    assert.equal(req?.body.temperature, 0.2);
    assert.equal(req?.body.max_tokens, 512);
    assert.deepEqual(req?.body.reasoning, { effort: 'high' });
    assert.deepEqual(req?.body.messages, [{ role: 'user', content: 'hi' }]);
    assert.deepEqual(
      req?.body.tools.map((t: any) => t.function.name),
      ['list_dir', 'read_file', 'bash', 'sleep'],
    );
  });

  for (const field of ['reasoning_content', 'reasoning'] as const) {
    it(`streams delta.${field} as thinking events and stores it as thinking_content`, async () => {
      await serve({
        reasoning: 'First, 17 × 20 = 340. Then 17 × 3 = 51.',
        reasoningField: field,
        reasoningChunks: 4,
        text: '391',
        chunks: 1,
        usage: { reasoning_tokens: 24 },
      });
      const r = await run([user('17 × 23?')], { settings: { reasoning: { effort: 'medium', max_tokens: 4000 } } });
      const thinking = rec.of('thinking').map((e) => e.content);
      assert.equal(thinking.length, 4);
      assert.equal(thinking.join(''), 'First, 17 × 20 = 340. Then 17 × 3 = 51.');
      assert.deepEqual(
        rec.of('chunk').map((e) => e.content),
        ['391'],
      );
      assert.equal(rec.messages[0]?.thinking_content, 'First, 17 × 20 = 340. Then 17 × 3 = 51.');
      assert.equal(rec.messages[0]?.thinking_tokens, 24);
      assert.equal(r.content, '391');
      // A budget is sent instead of the effort: the API takes one or the other.
      assert.deepEqual(api.completionRequests()[0]?.body.reasoning, { max_tokens: 4000 });
    });
  }

  it('runs a two-iteration tool turn from fragmented tool-call arguments', async () => {
    await serve(
      {
        toolCalls: [
          { name: 'list_dir', arguments: { dir: '.' }, id: 'call_ls', fragments: 4 },
          { name: 'read_file', arguments: { path: 'README.md' }, id: 'call_read', fragments: 5 },
        ],
      },
      { text: 'The workspace has a README and a src folder.' },
    );
    const r = await run([user('What is in here?')]);

    assert.equal(r.content, 'The workspace has a README and a src folder.');
    assert.equal(r.iterations, 2);
    assert.deepEqual(
      r.toolCalls.map((t) => [t.name, t.success]),
      [
        ['list_dir', true],
        ['read_file', true],
      ],
    );
    // Each tool is announced once, while its call is still streaming: before anything is stored.
    const firstMessage = rec.log.findIndex((e) => e.type === 'message');
    const announced = rec.log.flatMap((e, i) => (e.type === 'tool' ? [[e.name, i < firstMessage]] : []));
    assert.deepEqual(announced, [
      ['list_dir', true],
      ['read_file', true],
    ]);

    const [call, listed, read, final] = rec.messages;
    assert.equal(rec.messages.length, 4);
    assert.equal(call?.content, null);
    assert.equal(call?.finishReason, 'tool_calls');
    assert.equal(call?.iteration, 1);
    assert.deepEqual(call?.tool_calls, [
      { id: 'call_ls', type: 'function', function: { name: 'list_dir', arguments: '{"dir":"."}' } },
      { id: 'call_read', type: 'function', function: { name: 'read_file', arguments: '{"path":"README.md"}' } },
    ]);
    assert.deepEqual(
      [listed?.role, listed?.tool_call_id, listed?.content],
      ['tool', 'call_ls', 'README.md (30B)\nsrc/'],
    );
    assert.deepEqual(
      [read?.role, read?.tool_call_id, read?.content],
      ['tool', 'call_read', '# Demo\nHello from the readme.'],
    );
    assert.equal(final?.finishReason, 'stop');
    assert.equal(final?.iteration, 2);

    const second = api.completionRequests()[1]?.body;
    assert.deepEqual(second.messages, [
      { role: 'user', content: 'What is in here?' },
      { role: 'assistant', content: null, tool_calls: call?.tool_calls },
      { role: 'tool', content: 'README.md (30B)\nsrc/', tool_call_id: 'call_ls' },
      { role: 'tool', content: '# Demo\nHello from the readme.', tool_call_id: 'call_read' },
    ]);
  });

  it('sends the earlier turns again, so the model remembers them', async () => {
    api = await OpenAiServer.start({
      script: (req) => {
        const known = req.body.messages.some((m: any) => String(m.content).includes('My name is Alice'));
        if (lastUserText(req.body) === 'What is my name?') return { text: known ? 'Your name is Alice.' : 'No idea.' };
        return { text: 'Nice to meet you, Alice.' };
      },
    });
    const history = [user('My name is Alice.')];
    await run(history);
    history.push(...asHistory(rec.messages), user('What is my name?'));
    const r = await run(history);

    assert.equal(r.content, 'Your name is Alice.');
    assert.deepEqual(api.completionRequests()[1]?.body.messages, [
      { role: 'user', content: 'My name is Alice.' },
      { role: 'assistant', content: 'Nice to meet you, Alice.' },
      { role: 'user', content: 'What is my name?' },
    ]);
  });

  it('waits out a 429 for as long as Retry-After says, then succeeds', async () => {
    await serve({ error: { status: 429, retryAfterSeconds: 1 } }, { text: 'Back again.' });
    const r = await run([user('hi')], { engine: { retryDelayMs: defaultRetryDelayMs } });
    assert.equal(r.content, 'Back again.');
    assert.equal(r.failure, undefined);
    const [first, second] = api.completionRequests();
    assert.ok(second!.at - first!.at >= 1000, `retried after ${second!.at - first!.at} ms`);
  });

  it('backs off 0.5 s, 1 s, 2 s by default, or as long as Retry-After says', () => {
    assert.deepEqual(
      [1, 2, 3].map((n) => defaultRetryDelayMs(n, null)),
      [500, 1000, 2000],
    );
    assert.equal(defaultRetryDelayMs(1, 7000), 7000);
  });

  it('fails with LLM_ERROR after four 500s in a row', async () => {
    api = await OpenAiServer.start({ defaultReply: { error: { status: 500, message: 'upstream exploded' } } });
    const waits: [number, number | null][] = [];
    const r = await run([user('hi')], { engine: { retryDelayMs: (n, after) => (waits.push([n, after]), 0) } });
    assert.equal(r.failure?.code, 'LLM_ERROR');
    assert.match(r.failure!.message, /LLM API error 500: upstream exploded/);
    assert.equal(api.completionRequests().length, 4);
    assert.deepEqual(waits, [
      [1, null],
      [2, null],
      [3, null],
    ]);
    assert.equal(r.iterations, 0);
    assert.equal(rec.messages.length, 0);
  });

  it('fails at once on an error a retry cannot fix', async () => {
    await serve({ error: { status: 401, message: 'Incorrect API key provided' } });
    const r = await run([user('hi')]);
    assert.deepEqual(r.failure, { code: 'LLM_ERROR', message: 'LLM API error 401: Incorrect API key provided' });
    assert.equal(api.completionRequests().length, 1);
  });

  it('retries a stream cut mid-way and keeps only the complete reply', async () => {
    await serve(
      { text: 'This reply gets cut off.', chunks: 6, cutAfterChunks: 3 },
      { text: 'This one arrives whole.' },
    );
    const r = await run([user('hi')]);
    assert.equal(r.content, 'This one arrives whole.');
    assert.equal(api.completionRequests().length, 2);
    assert.equal(rec.messages.length, 1);
    assert.equal(rec.messages[0]?.content, 'This one arrives whole.');
    // The cut attempt's chunks were already streamed out live; the retry streams the whole reply again.
    assert.ok(
      rec
        .of('chunk')
        .map((e) => e.content)
        .join('')
        .endsWith('This one arrives whole.'),
    );
  });

  it('stops with MAX_ITERATIONS when the model keeps calling tools', async () => {
    api = await OpenAiServer.start({ defaultReply: { toolCalls: [{ name: 'list_dir', arguments: {} }] } });
    const r = await run([user('loop')], { settings: { maxIterations: 3 } });
    assert.equal(r.failure?.code, 'MAX_ITERATIONS');
    assert.equal(r.iterations, 3);
    assert.equal(api.completionRequests().length, 3);
    // The last call's tools still ran: the stored history answers every tool call.
    assert.deepEqual(
      rec.messages.map((m) => m.role),
      ['assistant', 'tool', 'assistant', 'tool', 'assistant', 'tool'],
    );
  });

  it('stops with MAX_DURATION while waiting to retry, on the injected clock', async () => {
    api = await OpenAiServer.start({ defaultReply: { error: { status: 503 } } });
    const clock = new ManualClock();
    const turn = run([user('hi')], {
      settings: { maxDurationMs: 60_000 },
      engine: { clock, retryDelayMs: () => 10 * 60_000 },
    });
    await until('the first attempt', () => api.completionRequests().length === 1, 5000, 10);
    clock.advance(60_000);
    const r = await turn;
    assert.equal(r.failure?.code, 'MAX_DURATION');
    assert.equal(api.completionRequests().length, 1);
  });

  it('stops with MAX_DURATION in the middle of a tool, which is interrupted', async () => {
    await serve({ toolCalls: [{ name: 'sleep', arguments: { seconds: 30 } }] });
    const started = Date.now();
    const r = await run([user('nap')], { settings: { maxDurationMs: 300 } });
    assert.ok(Date.now() - started < 5000);
    assert.equal(r.failure?.code, 'MAX_DURATION');
    assert.deepEqual(
      r.toolCalls.map((t) => [t.name, t.success]),
      [['sleep', false]],
    );
    assert.match(rec.messages[1]?.content ?? '', /^Interrupted after/);
  });

  it('cancels with budget_exceeded once the tokens used pass max_tokens, answering the pending tool calls', async () => {
    await serve({
      toolCalls: [{ name: 'list_dir', arguments: {}, id: 'call_1' }],
      usage: { prompt_tokens: 800, completion_tokens: 300 },
    });
    const r = await run([user('hi')], { settings: { budget: { max_tokens: 1000 } } });
    assert.deepEqual(r.cancelled, { reason: 'budget_exceeded' });
    assert.deepEqual(r.budgetExceeded, { kind: 'max_tokens', limit: 1000, used: 1100 });
    assert.equal(api.completionRequests().length, 1);
    assert.deepEqual(r.toolCalls, []);
    assert.deepEqual(
      rec.messages.map((m) => [m.role, m.tool_call_id, m.content]),
      [
        ['assistant', null, null],
        ['tool', 'call_1', 'Not run: the turn was cancelled (budget_exceeded: max_tokens)'],
      ],
    );
  });

  it('does not cancel a turn whose final reply is what passes max_tokens', async () => {
    await serve({ text: 'Done.', usage: { prompt_tokens: 5000, completion_tokens: 10 } });
    const r = await run([user('hi')], { settings: { budget: { max_tokens: 1000 } } });
    assert.equal(r.cancelled, undefined);
    assert.equal(r.content, 'Done.');
  });

  it('cancels with budget_exceeded when max_wall_seconds runs out', async () => {
    await serve({ text: 'slow', chunks: 4, chunkDelayMs: 400 });
    const r = await run([user('hi')], { settings: { budget: { max_wall_seconds: 0.3 } } });
    assert.deepEqual(r.cancelled, { reason: 'budget_exceeded' });
    assert.equal(r.budgetExceeded?.kind, 'max_wall_seconds');
    // Timers are monotonic, the clock is wall time: the two can disagree by a millisecond or two.
    assert.ok(r.budgetExceeded!.used >= 0.28, `used ${r.budgetExceeded!.used}`);
    assert.ok(r.budgetExceeded!.used < 1.5, `used ${r.budgetExceeded!.used}`);
  });

  it('stops the stream on an abort and reports the abort reason', async () => {
    await serve({ text: 'a long, slow reply that nobody waits for', chunks: 10, chunkDelayMs: 200 });
    const ctl = new AbortController();
    const turn = run([user('hi')], { signal: ctl.signal });
    await until('the first chunk', () => rec.of('chunk').length > 0, 5000, 10);
    ctl.abort('client_disconnect');
    const r = await turn;
    assert.deepEqual(r.cancelled, { reason: 'client_disconnect' });
    assert.equal(r.content, null);
    assert.equal(rec.messages.length, 0);
    assert.ok(rec.of('chunk').length < 10);
  });

  it('a cancel after a tool-calling iteration that said something leaves the turn with no reply (issue 29 item 10)', async () => {
    await serve({ text: 'Let me nap first.', toolCalls: [{ name: 'sleep', arguments: { seconds: 60 } }] });
    const ctl = new AbortController();
    const turn = run([user('nap')], { signal: ctl.signal });
    await until('the tool to start', () => rec.messages.length === 1, 5000, 10);
    ctl.abort('user_cancel');
    const r = await turn;
    assert.deepEqual(r.cancelled, { reason: 'user_cancel' });
    assert.equal(r.content, null, 'the text before a tool call is not the final reply');
    assert.equal(rec.messages[0]?.content, 'Let me nap first.', 'it is still stored with its tool call');
  });

  it('cancels a running bash on user cancel and leaves no process behind', async () => {
    await serve({
      toolCalls: [
        { name: 'bash', arguments: { command: 'echo pid=$$; sleep 30 & sleep 30; echo never' }, id: 'call_sh' },
        { name: 'list_dir', arguments: {}, id: 'call_ls' },
      ],
    });
    const ctl = new AbortController();
    const turn = run([user('hi')], { signal: ctl.signal });
    const pid = await until(
      'the shell to start',
      () => {
        const m = /pid=(\d+)/.exec(
          rec
            .of('toolChunk')
            .map((e) => e.content)
            .join(''),
        );
        return m ? Number(m[1]) : undefined;
      },
      5000,
      10,
    );
    assert.equal(rec.of('toolChunk')[0]?.tool_call_id, 'call_sh');
    ctl.abort();
    const r = await turn;

    assert.deepEqual(r.cancelled, { reason: 'user_cancel' });
    assert.equal(alive(pid), false);
    assert.throws(() => process.kill(-pid, 0), /ESRCH/, 'nothing of the process group is left');
    assert.deepEqual(
      r.toolCalls.map((t) => [t.name, t.success]),
      [['bash', false]],
    );
    const [, shell, skipped] = rec.messages;
    assert.match(shell?.content ?? '', /pid=\d+\n\[cancelled; killed\]$/);
    assert.equal(skipped?.content, 'Not run: the turn was cancelled (user_cancel)');
    assert.equal(api.completionRequests().length, 1);
  });

  it('hands a refused tool path back to the model as the tool result and goes on', async () => {
    fs.writeFileSync(path.join(path.dirname(workspace), 'leo-outside-secret.txt'), 'TOP-SECRET-CONTENT');
    await serve(
      { toolCalls: [{ name: 'read_file', arguments: { path: '../leo-outside-secret.txt' } }] },
      { text: 'I may not read that.' },
    );
    try {
      const r = await run([user('read the secret')]);
      assert.equal(r.content, 'I may not read that.');
      assert.deepEqual(
        r.toolCalls.map((t) => [t.name, t.success]),
        [['read_file', false]],
      );
      assert.match(rec.messages[1]?.content ?? '', /^Error: access denied/);
      assert.doesNotMatch(JSON.stringify(api.completionRequests()[1]?.body), /TOP-SECRET-CONTENT/);
    } finally {
      fs.rmSync(path.join(path.dirname(workspace), 'leo-outside-secret.txt'));
    }
  });
});

describe('OpenAiServer, the scripted provider these tests run against', () => {
  let api: OpenAiServer;
  before(async () => {
    api = await OpenAiServer.start();
  });
  after(() => api.close());

  const post = (body: unknown) =>
    fetch(`${api.baseUrl}/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });

  it('streams chat.completion.chunk payloads as the API does, tool-call arguments in index-keyed fragments', async () => {
    api.enqueue({ text: 'Hi', chunks: 1, toolCalls: [{ name: 'sleep', arguments: { seconds: 1 }, id: 'call_z' }] });
    const res = await post({ model: 'm', stream: true, stream_options: { include_usage: true }, messages: [] });
    assert.match(String(res.headers.get('content-type')), /^text\/event-stream/);
    const raw = await res.text();
    const blocks = raw.split('\n\n').filter(Boolean);
    assert.ok(blocks.every((b) => b.startsWith('data: ')));
    assert.equal(blocks.at(-1), 'data: [DONE]');
    const chunks = blocks.slice(0, -1).map((b) => JSON.parse(b.slice(6)));
    assert.ok(chunks.every((c) => c.object === 'chat.completion.chunk' && c.model === 'm'));
    const fragments = chunks.flatMap((c) => c.choices[0]?.delta.tool_calls ?? []);
    assert.deepEqual(fragments[0], {
      index: 0,
      id: 'call_z',
      type: 'function',
      function: { name: 'sleep', arguments: fragments[0].function.arguments },
    });
    assert.ok(fragments.slice(1).every((f: any) => f.index === 0 && !('id' in f) && !('name' in f.function)));
    assert.equal(fragments.map((f: any) => f.function.arguments).join(''), '{"seconds":1}');
    assert.equal(chunks.at(-2).choices[0].finish_reason, 'tool_calls');
    assert.deepEqual(chunks.at(-1).choices, []);
    assert.equal(chunks.at(-1).usage.prompt_tokens_details.cached_tokens, 0);
  });

  it('answers a non-streaming request with one chat.completion object', async () => {
    api.enqueue({ text: 'Hello', reasoning: 'think', reasoningField: 'reasoning' });
    const body: any = await (await post({ model: 'm', messages: [{ role: 'user', content: 'hi' }] })).json();
    assert.equal(body.object, 'chat.completion');
    assert.deepEqual(body.choices[0].message, { role: 'assistant', content: 'Hello', reasoning: 'think' });
    assert.equal(body.choices[0].finish_reason, 'stop');
    assert.ok(body.usage.prompt_tokens > 0);
  });

  it('fails as scripted: a 429 with Retry-After', async () => {
    api.enqueue({ error: { status: 429, retryAfterSeconds: 3 } });
    const res = await post({ model: 'm', messages: [] });
    assert.equal(res.status, 429);
    assert.equal(res.headers.get('retry-after'), '3');
    assert.equal(((await res.json()) as any).error.type, 'rate_limit_exceeded');
  });
});
