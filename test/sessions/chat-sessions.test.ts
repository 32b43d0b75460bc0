// The agent chat endpoint's sessions through the real daemon against the scripted OpenAI-compatible server
// (agent-chat-endpoint.md; issue 15 items 16, 18, 19 and 20): attachments up to the 8 MB inline cap fit the chat
// route's body limit; a detached turn that fails leaves its error on the session; sessions can be read, listed,
// deleted and expire; each SSE call streams its own turn only, with heartbeats; attachments the parser skips still
// count against an engine that takes none.
import assert from 'node:assert/strict';
import http from 'node:http';
import { after, before, describe, it } from 'node:test';
import WebSocket from 'ws';
import type { ManualClock } from '../../src/core/clock.js';
import { INLINE_MAX_BYTES } from '../../src/sessions/attachments.js';
import {
  FireAndForgetResponse,
  SessionDeletedResponse,
  SessionListResponse,
  SessionMessagesResponse,
  SessionResponse,
} from '../../src/wire/sessions.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { OpenAiServer } from '../helpers/openai-server.js';
import { takeFrames } from '../helpers/sse-client.js';
import { until } from '../helpers/wait.js';

const CONFIG = (baseUrl: string, extra = '') => `
environments:
  keys: { OPENAI_KEY: sk-test-123 }
templates:
  bot:
    harness: shell
    command: "exec cat"
    environments: [keys]
    chat: { enabled: true, engine: openai, base_url: "${baseUrl}", api_key_env: OPENAI_KEY, model: gpt-test }
  cc: { harness: shell, command: "exec cat", chat: { enabled: true, engine: claude-cli } }
${extra}`;

async function daemonWith(llm: OpenAiServer, extra = '', web = '') {
  const t = await startTestDaemon({ config: CONFIG(llm.baseUrl, extra), web });
  for (const name of ['bot', 'cc'])
    assert.equal((await t.op('POST', '/api/v1/agents/spawn', { template: name, name })).status, 201);
  return { t, op: t.op, chat: (agent: string, body: unknown) => t.op('POST', `/agents/${agent}/chat`, body) };
}

interface Frame {
  event?: string;
  data?: any;
  comment?: string;
}

/** POSTs a chat call with `sse: true`; `frames` fills as events and comments arrive, `ended` settles at the end. */
function chatStream(t: TestDaemon, agent: string, body: object) {
  const frames: Frame[] = [];
  const payload = JSON.stringify({ ...body, sse: true });
  const ended = new Promise<Frame[]>((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port: t.daemon.port,
        method: 'POST',
        path: `/agents/${agent}/chat`,
        headers: {
          authorization: `Bearer ${t.daemon.operatorToken}`,
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(payload),
        },
      },
      (res) => {
        let buf = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => {
          const taken = takeFrames(buf + c);
          buf = taken.rest;
          for (const f of taken.frames)
            frames.push(
              f.comments.length && f.event === undefined
                ? { comment: f.comments.join('\n') }
                : { event: f.event, data: JSON.parse(f.data ?? 'null') },
            );
        });
        res.on('end', () => resolve(frames));
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
  return { frames, ended };
}

const named = (frames: Frame[], event: string) => frames.filter((f) => f.event === event);

/** Base64 of exactly `bytes` bytes, padded, without building the bytes: each 3 bytes are 4 characters. */
const base64Of = (bytes: number) => 'QUJD'.repeat(Math.floor(bytes / 3)) + ['', 'QQ==', 'QUI='][bytes % 3];

describe('chat sessions: attachments, errors, lifecycle', () => {
  let llm: OpenAiServer;
  let t: TestDaemon;
  let op: Awaited<ReturnType<typeof daemonWith>>['op'];
  let chat: Awaited<ReturnType<typeof daemonWith>>['chat'];

  before(async () => {
    llm = await OpenAiServer.start({ defaultReply: { text: 'Fine.' } });
    ({ t, op, chat } = await daemonWith(llm));
  });
  after(async () => {
    await t.stop();
    await llm.close();
  });

  it('an image at the 8 MB inline cap is sent; one byte over is the spec 400 naming the field (item 16)', async () => {
    const atCap = base64Of(INLINE_MAX_BYTES);
    assert.ok(atCap.length > 11_000_000, 'the body is far over the global 1 MiB limit');
    llm.enqueue({ text: 'A big picture.' });
    const ok = await chat('bot', {
      message: 'What is this?',
      attachments: [{ type: 'image', mediaType: 'image/png', data: atCap }],
    });
    assert.equal(ok.status, 200, ok.text.slice(0, 300));
    assert.equal(ok.json.message.content, 'A big picture.');
    const parts = llm.completionRequests().at(-1)!.body.messages.at(-1).content;
    assert.equal(parts[1].image_url.url, `data:image/png;base64,${atCap}`);

    const over = await chat('bot', {
      message: 'And this?',
      attachments: [{ type: 'image', mediaType: 'image/png', data: base64Of(INLINE_MAX_BYTES + 3) }],
    });
    assert.equal(over.status, 400, over.text.slice(0, 300));
    assert.equal(over.json.code, 'VALIDATION_ERROR');
    assert.equal(over.json.details.field, 'attachments[0].data');
    assert.match(over.json.error, /8 MB inline cap/);
  });

  it('claude-cli refuses attachments the parser would skip: MODEL_MODALITY_UNSUPPORTED on all given (item 20)', async () => {
    const audioByUrl = await chat('cc', {
      message: 'listen',
      attachments: [{ type: 'audio', url: 'https://example.com/a.wav' }],
    });
    assert.deepEqual(
      [audioByUrl.status, audioByUrl.json.code, audioByUrl.json.details],
      [400, 'MODEL_MODALITY_UNSUPPORTED', { attachmentType: 'audio' }],
    );
    const unknownFirst = await chat('cc', {
      message: 'look',
      attachments: [{ type: 'sticker' }, { type: 'image', url: 'https://example.com/a.png' }],
    });
    assert.deepEqual(
      [unknownFirst.status, unknownFirst.json.code, unknownFirst.json.details],
      [400, 'MODEL_MODALITY_UNSUPPORTED', { attachmentType: 'sticker' }],
    );
    assert.equal((await op('GET', '/agents/cc/sessions')).json.sessions.length, 0, 'no session was started');
  });

  it('a failed fire-and-forget turn leaves its error on the session and in its messages (item 18)', async () => {
    llm.enqueue({ error: { status: 400, message: 'no such model' } });
    const accepted = await chat('bot', { message: 'Nightly report', fireAndForget: true });
    assert.equal(accepted.status, 202);
    const { sessionId } = FireAndForgetResponse.parse(accepted.json);
    assert.ok(sessionId);
    const polled = await until(
      'the detached turn to end',
      async () => {
        const r = await op('GET', `/sessions/${sessionId}/messages`);
        return SessionMessagesResponse.parse(r.json).error ? r.json : undefined;
      },
      5000,
      50,
    );
    assert.equal(polled.error.code, 'LLM_ERROR');
    assert.match(polled.error.error, /400/);
    assert.ok(!Number.isNaN(Date.parse(polled.error.at)));
    assert.deepEqual(
      polled.messages.map((m: any) => [m.role, m.content]),
      [['user', 'Nightly report']],
    );
    const got = SessionResponse.parse((await op('GET', `/sessions/${sessionId}`)).json);
    assert.deepEqual(got.session.last_error, polled.error);
    assert.equal(got.busy, false);

    // The next turn starts clean: the error belonged to the turn before it.
    llm.enqueue({ text: 'Report done.' });
    const next = await chat('bot', { message: 'Try again', sessionId });
    assert.equal(next.status, 200, next.text);
    const after = SessionMessagesResponse.parse((await op('GET', `/sessions/${sessionId}/messages`)).json);
    assert.equal(after.error, null);
    assert.equal(after.messages.at(-1)!.content, 'Report done.');
  });

  it('GET /agents/:name/sessions lists newest first; DELETE refuses a busy session, then removes it (item 18)', async () => {
    const first = (await chat('bot', { message: 'one' })).json.sessionId;
    const second = (await chat('bot', { message: 'two' })).json.sessionId;
    const list = SessionListResponse.parse((await op('GET', '/agents/bot/sessions?limit=2')).json);
    assert.deepEqual(
      list.sessions.map((s) => s.id),
      [second, first],
    );
    assert.equal((await op('GET', '/agents/nobody/sessions')).json.code, 'AGENT_NOT_FOUND');
    assert.equal((await op('GET', '/agents/bot/sessions?limit=0')).status, 400);

    llm.enqueue({ text: 'a slow answer in many pieces', chunks: 10, chunkDelayMs: 100 });
    const slow = chat('bot', { message: 'three', sessionId: first });
    await until('the turn to run', async () => (await op('GET', `/sessions/${first}`)).json.busy === true, 5000, 20);
    const busy = await op('DELETE', `/sessions/${first}`);
    assert.deepEqual([busy.status, busy.json.code], [409, 'SESSION_BUSY']);
    assert.equal((await slow).status, 200);

    const deleted = await op('DELETE', `/sessions/${first}`);
    assert.equal(deleted.status, 200, deleted.text);
    assert.deepEqual(SessionDeletedResponse.parse(deleted.json), { sessionId: first, deleted: true });
    for (const p of [`/sessions/${first}`, `/sessions/${first}/messages`])
      assert.equal((await op('GET', p)).json.code, 'SESSION_NOT_FOUND');
    const left = SessionListResponse.parse((await op('GET', '/agents/bot/sessions')).json).sessions;
    assert.ok(!left.some((s) => s.id === first) && left.some((s) => s.id === second));
  });
});

describe('chat SSE streams (item 19)', () => {
  let llm: OpenAiServer;
  let t: TestDaemon;
  let chat: Awaited<ReturnType<typeof daemonWith>>['chat'];

  before(async () => {
    llm = await OpenAiServer.start({ defaultReply: { text: 'Fine.' } });
    ({ t, chat } = await daemonWith(llm, '', '  sse_queue: 8\n'));
  });
  after(async () => {
    await t.stop();
    await llm.close();
  });

  it('a turn queued behind another on its session streams its own events only, to its own done', async () => {
    const sessionId = (await chat('bot', { message: 'hello' })).json.sessionId;
    llm.enqueue({ text: 'the first turn answers slowly', chunks: 10, chunkDelayMs: 60 }, { text: 'second answer' });
    const first = chatStream(t, 'bot', { message: 'first', sessionId });
    await until('the first turn to stream', () => named(first.frames, 'inference.chunk').length > 0, 5000, 10);
    const second = chatStream(t, 'bot', { message: 'second', sessionId });
    const [a, b] = await Promise.all([first.ended, second.ended]);
    for (const [frames, reply] of [
      [a, 'the first turn answers slowly'],
      [b, 'second answer'],
    ] as const) {
      assert.equal(named(frames, 'done').length, 1, JSON.stringify(frames.map((f) => f.event)));
      assert.equal(frames.filter((f) => f.event).at(-1)!.event, 'done');
      assert.deepEqual(
        named(frames, 'message').map((f) => f.data.content),
        [reply],
      );
      assert.equal(
        named(frames, 'inference.chunk')
          .map((f) => f.data.content)
          .join(''),
        reply,
      );
    }
  });

  it('the per-call SSE stream gets a heartbeat while its turn runs', async () => {
    llm.enqueue({ text: 'a reply that takes its time', chunks: 10, chunkDelayMs: 100 });
    const s = chatStream(t, 'bot', { message: 'take your time' });
    await until('the turn to stream', () => named(s.frames, 'inference.chunk').length > 0, 5000, 10);
    (t.clock as ManualClock).advance(20_000);
    await until('a heartbeat', () => s.frames.some((f) => f.comment === 'heartbeat'), 2000, 10);
    const frames = await s.ended;
    assert.equal(named(frames, 'done').length, 1);
  });

  it('a /ws client that stops reading is cut once its queue is full, not buffered without bound', async () => {
    const ws = new WebSocket(`ws://127.0.0.1:${t.daemon.port}/ws`, {
      headers: { authorization: `Bearer ${t.daemon.operatorToken}` },
    });
    const got: any[] = [];
    ws.on('message', (m) => got.push(JSON.parse(String(m))));
    const closed = new Promise<void>((r) => ws.once('close', () => r()));
    await new Promise((r) => ws.once('open', r));
    // The client stops reading: the kernel buffers fill, then the daemon's socket backs up.
    (ws as any)._socket.pause();
    const piece = 'x'.repeat(10_000);
    llm.enqueue({ text: piece.repeat(1200), chunks: 1200 });
    const accepted = await chat('bot', { message: 'a long answer', fireAndForget: true });
    const { sessionId } = FireAndForgetResponse.parse(accepted.json);
    const op = (p: string) => t.op('GET', p);
    await until(
      'the detached turn to finish',
      async () => (await op(`/sessions/${sessionId}/messages`)).json.messages.some((m: any) => m.role === 'assistant'),
      20_000,
      100,
    );
    (ws as any)._socket.resume();
    let cut = false;
    void closed.then(() => (cut = true));
    await until('the daemon to have cut the stalled client', () => cut, 10_000, 50).finally(() => ws.terminate());
    const mine = got.filter((e) => e.sessionId === sessionId);
    assert.ok(!mine.some((e) => e.event === 'done'), `the cut client got ${mine.length} events, done included`);
    assert.ok(mine.length < 1200);
  });
});

describe('chat session retention (item 18)', () => {
  it('a session untouched for chat.session_retention is deleted by the sweep; a recent one stays', async () => {
    const llm = await OpenAiServer.start({ defaultReply: { text: 'Fine.' } });
    const { t, op, chat } = await daemonWith(llm, 'chat: { session_retention: 1h }\n');
    try {
      const clock = t.clock as ManualClock;
      const old = (await chat('bot', { message: 'old' })).json.sessionId;
      clock.advance(5.5 * 3600_000);
      const recent = (await chat('bot', { message: 'recent' })).json.sessionId;
      assert.equal((await op('GET', `/sessions/${old}`)).status, 200, 'nothing is swept before the next pass');
      clock.advance(0.5 * 3600_000);
      assert.equal((await op('GET', `/sessions/${old}`)).json.code, 'SESSION_NOT_FOUND');
      assert.equal((await op('GET', `/sessions/${recent}`)).status, 200);
    } finally {
      await t.stop();
      await llm.close();
    }
  });
});
