import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import fc from 'fast-check';
import { TokenKind } from '../../src/wire/token-kinds.js';
import { AskToolInput, parseAskRequest } from '../../src/wire/ask-input.js';
import { ErrorEnvelope } from '../../src/http/envelope.js';
import type { RouteEntry } from '../../src/http/server.js';
import type { TestDaemon } from '../helpers/daemon.js';
import type { Target } from '../helpers/http.js';
import { TRAVERSALS, hostileString, jsonBody } from './arbitraries.js';
import { LIVE, bearerFor, startFuzzDaemon, type FuzzDaemon } from './fuzz-daemon.js';
import { fuzzParams } from './fuzz-params.js';
import { literalPath, percentEncode, send, type RawResponse } from './raw-http.js';

/**
 * Routes that would stop, restart, rename or remove the one live agent. They still get every hostile parameter and
 * body, only never the live agent's name, so a run cannot pull the agent the other routes need from under them.
 */
const LIFECYCLE = /^\/api\/v1\/agents\/:name(\/(stop|start|restart|reset|rename|template|environments))?$/;
/** The MCP endpoint speaks JSON-RPC: its errors are JSON-RPC error objects, not Leo's envelope. */
const JSON_RPC = /\/mcp$/;

const CLIMBING = /(^|[\\/])\.\.([\\/]|$)|^[\\/]|\u0000/;

const QUERY_KEYS = [
  'limit',
  'before',
  'after',
  'filename',
  'agent',
  'up_to',
  'days',
  '__proto__',
  'constructor',
  'a[b]',
  '',
];

interface Case {
  params: string[];
  literal: boolean[];
  query: [string, string | string[]][];
  body:
    | { kind: 'json'; value: unknown; contentType: string }
    | { kind: 'raw'; bytes: Uint8Array; contentType: string | null }
    | { kind: 'none' };
  tcp: boolean;
}

function paramArb(route: RouteEntry, name: string): fc.Arbitrary<string> {
  const live = ['agent', 'name'].includes(name) && !(route.method !== 'GET' && LIFECYCLE.test(route.url));
  return fc.oneof(
    { weight: live ? 3 : 0, arbitrary: fc.constant(LIVE) },
    { weight: 2, arbitrary: fc.stringMatching(/^[a-z0-9][a-z0-9_-]{0,10}$/) },
    { weight: 2, arbitrary: fc.constantFrom(...TRAVERSALS) },
    { weight: 3, arbitrary: hostileString },
  );
}

function caseArb(route: RouteEntry): fc.Arbitrary<Case> {
  const names = [...route.url.matchAll(/:(\w+)/g)].map((m) => m[1]!);
  const contentType = fc.constantFrom(
    'application/json',
    'application/json; charset=utf-8',
    'text/plain',
    'application/x-www-form-urlencoded',
    'multipart/form-data; boundary=x',
    'application/octet-stream',
  );
  const body: fc.Arbitrary<Case['body']> = fc.oneof(
    {
      weight: 8,
      arbitrary: fc.record({
        kind: fc.constant('json' as const),
        value: jsonBody,
        contentType: fc.constant('application/json'),
      }),
    },
    { weight: 1, arbitrary: fc.record({ kind: fc.constant('json' as const), value: jsonBody, contentType }) },
    {
      weight: 2,
      arbitrary: fc.record({
        kind: fc.constant('raw' as const),
        bytes: fc.oneof(
          fc.uint8Array({ maxLength: 64 }),
          fc
            .constantFrom('{', '{"text":', '[', '"', 'null', '{}', '{"a":1}{', '\u0000')
            .map((s) => new TextEncoder().encode(s)),
        ),
        contentType: fc.option(contentType, { nil: null }),
      }),
    },
    { weight: 3, arbitrary: fc.constant({ kind: 'none' as const }) },
  );
  return fc.record({
    params: fc.tuple(...names.map((n) => paramArb(route, n))),
    literal: fc.tuple(...names.map(() => fc.boolean())),
    query: fc.array(
      fc.tuple(
        fc.oneof(fc.constantFrom(...QUERY_KEYS), fc.string({ maxLength: 8 })),
        fc.oneof(hostileString, fc.array(hostileString, { minLength: 2, maxLength: 3 })),
      ),
      { maxLength: 3 },
    ),
    body,
    tcp: fc.boolean(),
  });
}

function pathOf(route: RouteEntry, c: Case): string {
  let i = 0;
  const path = route.url.replace(/:(\w+)/g, () => {
    const v = c.params[i]!;
    return c.literal[i++] ? literalPath(v) || percentEncode(v) : percentEncode(v);
  });
  const pairs = c.query.flatMap(([k, v]) => [v].flat().map((x) => `${percentEncode(k)}=${percentEncode(x)}`));
  return pairs.length ? `${path}?${pairs.join('&')}` : path;
}

/** A JSON route's answer: below 500, and an error is Leo's envelope (JSON-RPC's on the MCP endpoint). */
function checkAnswer(route: RouteEntry, r: RawResponse, label: string): void {
  assert.ok(r.status >= 200 && r.status < 500, `${label} → ${r.status} ${r.text.slice(0, 300)}`);
  const type = String(r.headers['content-type'] ?? '');
  if (r.status < 400) {
    if (type.startsWith('application/json')) JSON.parse(r.text);
    return;
  }
  assert.match(type, /^application\/json/, `${label} → ${r.status} is not JSON: ${r.text.slice(0, 200)}`);
  const json = JSON.parse(r.text);
  if (JSON_RPC.test(route.url) && json.jsonrpc === '2.0') {
    assert.equal(typeof json.error?.message, 'string', label);
    return;
  }
  const envelope = ErrorEnvelope.safeParse(json);
  assert.ok(envelope.success, `${label} → ${r.status} not an error envelope: ${r.text.slice(0, 300)}`);
  assert.ok(envelope.data.error.length > 0, `${label} → empty error message`);
}

describe('fuzz: every registered route answers hostile input with a documented status and envelope', () => {
  let t: TestDaemon;
  let tokens: FuzzDaemon['tokens'];

  before(async () => {
    ({ t, tokens } = await startFuzzDaemon());
  });
  after(() => t.stop());

  it('walks the whole route table over both listeners', async (ctx) => {
    const routes = t.daemon.routes.filter((r) => r.method !== 'HEAD');
    assert.ok(routes.length > 40, `only ${routes.length} routes registered`);
    for (const route of routes) {
      await ctx.test(`${route.method} ${route.url}`, async () => {
        await fc.assert(
          fc.asyncProperty(caseArb(route), async (c) => {
            // An ask that validates blocks until it is answered (30 min); its validator has its own suite.
            if (route.url.endsWith('/chat/ask') && c.params[0] === LIVE) {
              const asked = parseAskRequest(c.body.kind === 'json' ? c.body.value : {}, { source: 'api' });
              fc.pre(!(asked.ok && asked.request.kind === 'ask'));
            }
            const target: Target = c.tcp ? t.tcp : t.socket;
            const headers: Record<string, string> = c.tcp ? bearerFor(route, tokens) : {};
            let payload: Buffer | undefined;
            if (c.body.kind === 'json') {
              payload = Buffer.from(JSON.stringify(c.body.value) ?? 'null');
              headers['content-type'] = c.body.contentType;
            } else if (c.body.kind === 'raw') {
              payload = Buffer.from(c.body.bytes);
              if (c.body.contentType) headers['content-type'] = c.body.contentType;
            }
            if (JSON_RPC.test(route.url)) headers.accept = 'application/json, text/event-stream';
            const path = pathOf(route, c);
            const r = await send(target, { method: route.method, path, headers, body: payload, timeoutMs: 8000 });
            const label = `${c.tcp ? 'tcp' : 'socket'} ${route.method} ${path}`;
            checkAnswer(route, r, label);
            // No name, id or event of Leo's may climb, be absolute or carry a NUL: such a parameter is never accepted.
            const climbs = c.params.some((p, i) => !c.literal[i] && CLIMBING.test(p));
            assert.ok(!(climbs && r.status < 300), `${label} accepted a climbing parameter → ${r.status}`);
          }),
          fuzzParams(100),
        );
      });
    }
    // Still serving, and nothing the fuzz sent took the agent down.
    const health = await send(t.socket, { method: 'GET', path: '/health' });
    assert.equal(JSON.parse(health.text).data.ready, true);
    assert.equal(t.daemon.supervisor.has(LIVE), true);
  });

  it('the MCP tools: any arguments give a tool result or a refusal, never an internal error', async () => {
    const tools = [
      'leo_chat_post',
      'leo_chat_ask',
      'leo_chat_ask_withdraw',
      'leo_chat_schedule',
      'leo_chat_schedule_list',
      'leo_chat_schedule_cancel',
      'leo_chat_history',
    ];
    // Paths an agent may name for files to post: a device that never ends, a directory, climbing and missing paths.
    const file = fc.oneof(fc.constantFrom('/etc/hostname', '/dev/zero', '/etc', ...TRAVERSALS), hostileString);
    const files = fc.array(file, { maxLength: 3 });
    const args = fc.oneof(jsonBody, fc.record({ text: hostileString, files }, { requiredKeys: [] }));
    await fc.assert(
      fc.asyncProperty(fc.oneof(fc.constantFrom(...tools), hostileString), args, async (name, callArgs) => {
        if (name === 'leo_chat_ask') {
          // The MCP SDK drops unknown keys before the tool sees its arguments.
          const known =
            callArgs && typeof callArgs === 'object' && !Array.isArray(callArgs)
              ? Object.fromEntries(Object.entries(callArgs).filter(([k]) => Object.hasOwn(AskToolInput.shape, k)))
              : callArgs;
          const asked = parseAskRequest(known, { source: 'mcp' });
          fc.pre(!(asked.ok && asked.request.kind === 'ask'));
        }
        const r = await send(t.socket, {
          method: 'POST',
          path: `/api/agent/${LIVE}/mcp`,
          headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: callArgs } }),
          timeoutMs: 8000,
        });
        const label = `${name} ${JSON.stringify(callArgs)}`;
        assert.ok(r.status < 500, `${label} → ${r.status} ${r.text.slice(0, 300)}`);
        const answer = JSON.parse(r.text);
        const text = JSON.stringify(answer.result?.content ?? answer.error ?? '');
        // A refusal names what is wrong with the arguments; a JavaScript exception's wording is a bug showing through.
        assert.doesNotMatch(
          text,
          /TypeError|RangeError|ReferenceError|SqliteError|Cannot read prop|is not a function|\bat \//,
          label,
        );
      }),
      fuzzParams(400),
    );
  });
  it('any method, Host, Origin, Authorization or caller header on any route: a documented status and envelope', async () => {
    const routes = t.daemon.routes.filter((r) => r.method !== 'HEAD');
    // Header values node will put on the wire: tab, printable ASCII and the latin-1 upper half.
    const headerValue = fc.oneof(
      fc.string({ unit: 'binary-ascii', maxLength: 60 }).map((v) => v.replace(/[^\t\x20-\x7e\x80-\xff]/g, '')),
      fc.constantFrom(
        '',
        ' ',
        'localhost',
        'localhost:1',
        'evil.example',
        '[::1]',
        'null',
        'http://localhost',
        'file://',
      ),
    );
    const auth = fc.oneof(
      headerValue,
      fc.constantFrom('Bearer', 'Bearer ', 'bearer x', `Bearer ${'x'.repeat(5000)}`, 'Basic Zm9vOmJhcg=='),
      fc.constantFrom(...TokenKind.options).map((k) => `Bearer ${tokens[k]}`),
    );
    const method = fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'PROPFIND', 'TRACE');
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...routes),
        method,
        fc.record(
          {
            host: headerValue,
            origin: headerValue,
            authorization: auth,
            'x-leo-task': headerValue,
            'x-leo-dispatch': headerValue,
          },
          { requiredKeys: [] },
        ),
        fc.boolean(),
        async (route, m, headers, tcp) => {
          // No body and no live agent: nothing can block, and every answer comes from the gates and validators.
          const path = route.url.replace(/:(\w+)/g, (_, name) => (name === 'event' ? 'stop' : 'nobody'));
          const r = await send(tcp ? t.tcp : t.socket, { method: m, path, headers, timeoutMs: 8000 });
          checkAnswer(route, r, `${tcp ? 'tcp' : 'socket'} ${m} ${path} ${JSON.stringify(headers)}`);
        },
      ),
      fuzzParams(800),
    );
  });
});
