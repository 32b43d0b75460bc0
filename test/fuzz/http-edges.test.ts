import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import fc from 'fast-check';
import { ErrorEnvelope } from '../../src/http/envelope.js';
import { MAX_JSON_DEPTH, nestingExceeds } from '../../src/http/json-body.js';
import type { RouteEntry } from '../../src/http/server.js';
import type { TestDaemon } from '../helpers/daemon.js';
import type { Target } from '../helpers/http.js';
import { SseClient } from '../helpers/sse-client.js';
import { hostileString } from './arbitraries.js';
import { LIVE, bearerFor, startFuzzDaemon, type FuzzDaemon } from './fuzz-daemon.js';
import { fuzzParams } from './fuzz-params.js';
import { send, type RawResponse } from './raw-http.js';
import { exchange, parseAnswer } from './raw-socket.js';

const BODY_LIMIT = 4096;
const ATTACHMENT_MAX = 2048;
/** A move's part may be three times hosts.move_max_bytes (the fuzz daemon's is 1 000). */
const PART_MAX = 3000;
const PARTS = '/api/v1/moves/:id/parts/*';
const REQUEST_TIMEOUT_MS = 2000;

function assertEnvelope(status: number, body: unknown, want: { status: number; code?: string }, label: string): void {
  assert.equal(status, want.status, `${label}: ${JSON.stringify(body)}`);
  const envelope = ErrorEnvelope.parse(body);
  assert.ok(envelope.error.length > 0, label);
  if (want.code) assert.equal(envelope.code, want.code, label);
}

function assertAnswer(r: RawResponse, want: { status: number; code?: string }, label: string): void {
  assert.match(String(r.headers['content-type']), /^application\/json/, label);
  assertEnvelope(r.status, JSON.parse(r.text), want, label);
}

describe('fuzz: the HTTP listeners under hostile framing', () => {
  let t: TestDaemon;
  let tokens: FuzzDaemon['tokens'];
  /** Routes whose body goes through the JSON parser; the upload and part routes stream their bodies instead. */
  let jsonRoutes: RouteEntry[];

  /** Where a route can be reached with its body read: the socket always, TCP with a token the route takes. */
  const reach = (route: RouteEntry): { target: Target; headers: Record<string, string>; label: string }[] => {
    const viaSocket = { target: t.socket, headers: {}, label: 'socket' };
    if (route.access.socketOnly) return [viaSocket];
    return [viaSocket, { target: t.tcp, headers: bearerFor(route, tokens), label: 'tcp' }];
  };
  const pathOf = (route: RouteEntry) =>
    route.url.replace(/:(\w+)/g, (_, name) => (name === 'event' ? 'stop' : LIVE)) +
    (route.url === '/api/v1/chat/uploads' ? `?filename=big.bin&agent=${LIVE}` : '');

  before(async () => {
    ({ t, tokens } = await startFuzzDaemon({
      config: `chat:\n  attachment_max_bytes: ${ATTACHMENT_MAX}\nhosts:\n  move_max_bytes: ${PART_MAX / 3}\n`,
      web: `  body_limit: ${BODY_LIMIT}\n  request_timeout: ${REQUEST_TIMEOUT_MS / 1000}s\n`,
    }));
    jsonRoutes = t.daemon.routes.filter(
      (r) => ['POST', 'PUT', 'PATCH'].includes(r.method) && r.url !== '/api/v1/chat/uploads' && r.url !== PARTS,
    );
  });
  after(() => t.stop());

  it('a body past its route limit: 413 with the envelope, declared or chunked, on every body-taking route', async () => {
    const routes = t.daemon.routes.filter((r) => ['POST', 'PUT', 'PATCH'].includes(r.method));
    assert.ok(routes.length > 25);
    for (const route of routes) {
      const limit =
        route.url === '/api/v1/chat/uploads'
          ? ATTACHMENT_MAX
          : route.url === PARTS
            ? PART_MAX
            : (route.bodyLimit ?? BODY_LIMIT);
      const body = Buffer.from(`{"text":"${'x'.repeat(limit)}"}`);
      for (const { target, headers, label } of reach(route)) {
        for (const chunked of [false, true]) {
          const what = `${label} ${route.method} ${route.url} ${chunked ? 'chunked' : 'declared'} ${body.length} bytes`;
          const r = await send(target, {
            method: route.method,
            path: pathOf(route),
            headers: {
              ...headers,
              'content-type': 'application/json',
              ...(chunked ? { 'transfer-encoding': 'chunked' } : {}),
            },
            body,
            chunked,
          });
          assertAnswer(r, { status: 413, code: 'body_too_large' }, what);
        }
      }
    }
  });

  it('errors the router raises before any hook still answer with the envelope', async () => {
    const op = { authorization: `Bearer ${tokens.operator}` };
    for (const target of [t.socket, t.tcp]) {
      const get = (path: string) => send(target, { method: 'GET', path, headers: op });
      assertAnswer(await get('/api/v1/agents/%'), { status: 400, code: 'bad_url' }, 'a broken %-escape');
      assertAnswer(await get(`/sessions/${'s'.repeat(101)}/config`), { status: 414, code: 'param_too_long' }, 'long');
      assertAnswer(await get('/ws'), { status: 426, code: 'upgrade_required' }, '/ws without an upgrade');
    }
  });

  it('headers past the 16 KiB limit: 431 with the envelope on both listeners', async () => {
    for (const target of [t.socket, t.tcp]) {
      const huge = `GET /health HTTP/1.1\r\nHost: localhost\r\nX-Filler: ${'a'.repeat(20_000)}\r\n\r\n`;
      const { text, closedAfterMs } = await exchange(target, [huge], { maxMs: 5000 });
      const answer = parseAnswer(text);
      assertEnvelope(answer.status, answer.body, { status: 431, code: 'headers_too_large' }, 'oversized header');
      assert.notEqual(closedAfterMs, null, 'the connection is closed after a 431');
      const many = `GET /health HTTP/1.1\r\nHost: localhost\r\n${Array.from({ length: 3000 }, (_, i) => `X-${i}: v\r\n`).join('')}\r\n`;
      const tooMany = parseAnswer((await exchange(target, [many], { maxMs: 5000 })).text);
      assertEnvelope(tooMany.status, tooMany.body, { status: 431, code: 'headers_too_large' }, 'too many headers');
      // On a kept-alive connection, after a first request was answered.
      const first = 'GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n';
      const second = await exchange(target, [first, huge], { gapMs: 100, maxMs: 5000 });
      const answer2 = parseAnswer(second.text.slice(second.text.indexOf('HTTP/1.1', 1)));
      assertEnvelope(answer2.status, answer2.body, { status: 431, code: 'headers_too_large' }, 'second request');
    }
  });

  it('bytes that are not HTTP: 400 with the envelope, and the listener keeps serving', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc
            .uint8Array({ minLength: 1, maxLength: 200 })
            .map((b) => Buffer.concat([Buffer.from(b), Buffer.from('\r\n\r\n')])),
          fc
            .constantFrom(
              'GET / HTTP/9.9\r\n\r\n',
              'GET /health HTTP/1.1\r\nContent-Length: -1\r\n\r\n',
              'POST /hooks/stop HTTP/1.1\r\nContent-Length: 2\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n',
              'GET /health HTTP/1.1\r\nBad Header\r\n\r\n',
              '\u0000\u0001\u0002\r\n\r\n',
            )
            .map((s) => Buffer.from(s)),
        ),
        fc.boolean(),
        async (bytes, tcp) => {
          const { text } = await exchange(tcp ? t.tcp : t.socket, [bytes], { maxMs: 3000 });
          if (!text) return; // closed without a word is a refusal too
          const answer = parseAnswer(text);
          if (answer.status >= 400)
            assertEnvelope(
              answer.status,
              answer.body,
              { status: answer.status },
              JSON.stringify(bytes.toString('latin1')),
            );
          else assert.ok(answer.status > 0, `not HTTP: ${text.slice(0, 80)}`);
        },
      ),
      fuzzParams(100),
    );
    assert.equal((await send(t.tcp, { method: 'GET', path: '/health' })).status, 200);
  });

  it('a request that trickles in is closed once web.request_timeout passes, on both listeners', async () => {
    const post = (auth: string) =>
      `POST /api/v1/devices HTTP/1.1\r\nHost: localhost\r\n${auth}Content-Type: application/json\r\nContent-Length: 100\r\n`;
    const operator = `Authorization: Bearer ${t.daemon.operatorToken}\r\n`;
    // One byte every 200 ms: never idle for long, never done. The headers alone take 20 s at that pace.
    const body = [...'{"name":"slow"}'.padEnd(100)];
    const cases = [
      { what: 'socket, trickled body', target: t.socket, chunks: [post('') + '\r\n', ...body], status: 408 },
      { what: 'socket, trickled headers', target: t.socket, chunks: [...post('')], status: 408 },
      { what: 'tcp, trickled body', target: t.tcp, chunks: [post(operator) + '\r\n', ...body], status: 408 },
      { what: 'tcp, trickled headers', target: t.tcp, chunks: [...post(operator)], status: 408 },
      // Refused at its headers, but the body still trickling in must not keep the connection.
      { what: 'tcp, no token, trickled body', target: t.tcp, chunks: [post('') + '\r\n', ...body], status: 401 },
    ];
    const results = await Promise.all(
      cases.map((c) => exchange(c.target, c.chunks, { gapMs: 200, maxMs: REQUEST_TIMEOUT_MS * 3 })),
    );
    for (const [i, { text, closedAfterMs }] of results.entries()) {
      const c = cases[i]!;
      assert.ok(
        closedAfterMs !== null && closedAfterMs < REQUEST_TIMEOUT_MS * 2,
        `${c.what}: closed after ${closedAfterMs} ms`,
      );
      const answer = parseAnswer(text);
      assertEnvelope(answer.status, answer.body, { status: c.status }, `${c.what}: ${text}`);
    }
  });

  it('an SSE stream and a held long-poll outlive web.request_timeout', async () => {
    const sse = await SseClient.open(t.tcp, '/api/v1/events', t.daemon.operatorToken);
    await sse.waitFor(1);
    const asking = send(t.socket, {
      method: 'POST',
      path: `/api/agent/${LIVE}/chat/ask`,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ question: 'still there?', options: [{ value: 'yes', label: 'Yes' }] }),
      timeoutMs: REQUEST_TIMEOUT_MS * 4,
    });
    await sleep(REQUEST_TIMEOUT_MS * 2);
    assert.equal(sse.ended, false, 'the SSE stream is still open');
    const asked = sse.events.find((e) => e.event === 'chat.message' && e.data.message.kind === 'ask');
    assert.ok(asked, 'the ask reached the stream after the timeout had passed');
    const answered = await send(t.socket, {
      method: 'POST',
      path: `/api/v1/chat/${LIVE}/messages/${asked.data.message.id}/answer`,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ values: ['yes'] }),
    });
    assert.equal(answered.status, 200, answered.text);
    const r = await asking;
    assert.equal(r.status, 200, r.text);
    assert.deepEqual(JSON.parse(r.text).data.values, ['yes']);
    sse.close();
  });

  it('invalid UTF-8 anywhere in a JSON body: 400 bad_json on every JSON route', async () => {
    // Lone continuation bytes, overlongs, surrogates encoded as UTF-8, truncated sequences, bytes never valid.
    const invalid = fc.constantFrom(
      [0x80],
      [0xbf],
      [0xc0, 0xaf],
      [0xe0, 0x80, 0xaf],
      [0xed, 0xa0, 0x80],
      [0xf4, 0x90, 0x80, 0x80],
      [0xe2, 0x82],
      [0xf0, 0x9f, 0x98],
      [0xfe],
      [0xff],
    );
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...jsonRoutes),
        fc.string(),
        invalid,
        fc.nat(),
        fc.boolean(),
        async (route, text, bad, at, tcp) => {
          const valid = Buffer.from(JSON.stringify({ text, name: text }));
          // Inside a string value, where a lenient decoder would quietly turn it into U+FFFD.
          const cut = 9 + (at % (Buffer.byteLength(text) + 1));
          const body = Buffer.concat([valid.subarray(0, cut), Buffer.from(bad), valid.subarray(cut)]);
          const ways = reach(route);
          const { target, headers, label } = ways[tcp && ways.length > 1 ? 1 : 0]!;
          const r = await send(target, {
            method: route.method,
            path: pathOf(route),
            headers: { ...headers, 'content-type': 'application/json' },
            body,
          });
          assertAnswer(
            r,
            { status: 400, code: 'bad_json' },
            `${label} ${route.method} ${route.url} ${body.toString('hex')}`,
          );
        },
      ),
      fuzzParams(300),
    );
  });

  it(`JSON nested past ${MAX_JSON_DEPTH} levels: 400 bad_json on every JSON route, without a stack overflow`, async () => {
    const limitOf = (route: RouteEntry) => route.bodyLimit ?? BODY_LIMIT;
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...jsonRoutes),
        fc.integer({ min: MAX_JSON_DEPTH + 1, max: 200_000 }),
        fc.constantFrom('[', '{"a":'),
        async (route, depth, open) => {
          const close = open === '[' ? ']' : '}';
          // As deep as the route's body limit allows: the depth check must not depend on the limit to stop it.
          const fits = Math.min(depth, Math.floor((limitOf(route) - 64) / (open.length + 1)));
          fc.pre(fits > MAX_JSON_DEPTH);
          const body = `{"agent":"x","payload":${open.repeat(fits)}1${close.repeat(fits)}}`;
          const r = await send(t.socket, {
            method: route.method,
            path: pathOf(route),
            headers: { 'content-type': 'application/json' },
            body,
          });
          assertAnswer(r, { status: 400, code: 'bad_json' }, `${route.method} ${route.url} depth ${fits}`);
        },
      ),
      fuzzParams(100),
    );
  });

  it('nestingExceeds agrees with the depth of the parsed value, brackets inside strings included', () => {
    const tricky = fc.oneof(hostileString, fc.constantFrom('[', ']', '{', '}', '\\', '"[', '\\"[', '\\\\', '[[[[{{{{'));
    const value = fc.letrec<{ v: unknown }>((tie) => ({
      v: fc.oneof(
        { depthSize: 'large', withCrossShrink: true },
        tricky,
        fc.integer(),
        fc.array(tie('v'), { maxLength: 3 }),
        fc.dictionary(tricky, tie('v'), { maxKeys: 3 }),
      ),
    })).v;
    const depthOf = (v: unknown): number =>
      v !== null && typeof v === 'object' ? 1 + Math.max(0, ...Object.values(v as object).map(depthOf)) : 0;
    fc.assert(
      fc.property(value, fc.integer({ min: 0, max: 8 }), (v, max) => {
        const text = JSON.stringify(v);
        assert.equal(nestingExceeds(text, max), depthOf(v) > max, text);
      }),
      fuzzParams(1000),
    );
  });
});
