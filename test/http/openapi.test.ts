// The OpenAPI contract (issue 19): the document the daemon serves lists every route it registers, declares a JSON
// schema for each JSON route's answers, agrees with what the live daemon answers, and is the committed
// docs/openapi.json.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { after, before, describe, it } from 'node:test';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { request, type Response } from '../helpers/http.js';
import { SseClient } from '../helpers/sse-client.js';
import { until } from '../helpers/wait.js';
import { OpenApiContract, openApiPath, type OpenApiDocument } from '../helpers/openapi-contract.js';

/** Routes whose answers are not JSON: files, streams, upgrades, Prometheus text. */
const NOT_JSON = new Set([
  'GET /',
  'GET /assets/:file',
  'GET /manifest.webmanifest',
  'GET /icon.svg',
  'GET /icon-192.png',
  'GET /icon-512.png',
  'GET /sw.js',
  'GET /metrics',
  'GET /api/v1/events',
  'GET /events',
  'GET /api/v1/agents/:name/terminal/stream',
  'GET /api/v1/chat/:agent/attachments/:id',
  'GET /api/v1/moves/:id/parts/*',
  'GET /sessions/:id/stream',
  'GET /ws',
  // MCP's stateless Streamable HTTP: only POST carries JSON-RPC; GET and DELETE have no JSON success.
  'GET /api/agent/:name/mcp',
  'DELETE /api/agent/:name/mcp',
]);

interface Call {
  method: string;
  /** The route as registered, with its parameters filled in by `params`. */
  route: string;
  params?: Record<string, string>;
  query?: string;
  body?: unknown;
  token?: string;
  accept?: string;
  /** Sent on the unix socket (no token) rather than TCP. */
  socket?: boolean;
}

describe('OpenAPI: the document covers every route and agrees with the live daemon', () => {
  let t: TestDaemon;
  let doc: OpenApiDocument;
  let contract: OpenApiContract;
  const seen: Array<{ call: Call; res: Response }> = [];

  /** Calls a route and keeps its answer for the contract check. */
  const call = async (c: Call): Promise<Response> => {
    const path = c.route.replace(/:(\w+)/g, (_, p: string) => encodeURIComponent(c.params?.[p] ?? 'ghost'));
    const res = await request(c.socket ? t.socket : t.tcp, c.method, c.query ? `${path}?${c.query}` : path, {
      ...(c.socket ? {} : { token: c.token ?? t.daemon.operatorToken }),
      ...(c.body !== undefined ? { body: c.body } : {}),
      ...(c.accept ? { headers: { accept: c.accept } } : {}),
    });
    seen.push({ call: c, res });
    return res;
  };

  before(async () => {
    t = await startTestDaemon({
      config:
        'chat:\n  webhook_allowed_hosts: [push.example]\ntemplates:\n  cat: { harness: shell, command: "exec cat" }\n',
    });
    const served = await t.op('GET', '/api/v1/openapi.json');
    assert.equal(served.status, 200, served.text);
    doc = served.json;
    contract = new OpenApiContract(doc);
  });
  after(() => t.stop());

  it('lists every registered route, with who may call it', () => {
    const missing = t.daemon.routes
      .filter((r) => r.method !== 'HEAD')
      .filter((r) => !contract.operation(r.method, r.url)?.['x-leo-access' as never])
      .map((r) => `${r.method} ${r.url}`);
    assert.deepEqual(missing, []);
    const paths = new Set(t.daemon.routes.map((r) => openApiPath(r.url)));
    assert.deepEqual(
      Object.keys(doc.paths).filter((p) => !paths.has(p)),
      [],
      'paths in the document that no route serves',
    );
  });

  it('declares the JSON answer of every JSON route', () => {
    const undeclared = t.daemon.routes
      .filter((r) => r.method !== 'HEAD' && !NOT_JSON.has(`${r.method} ${r.url}`))
      .filter((r) => {
        const responses = contract.operation(r.method, r.url)?.responses ?? {};
        return !Object.entries(responses).some(([code, v]) => code.startsWith('2') && v.content?.['application/json']);
      })
      .map((r) => `${r.method} ${r.url}`);
    assert.deepEqual(undeclared, []);
  });

  it('is served to operator and device tokens, and is the committed docs/openapi.json', async () => {
    const issued = await t.op('POST', '/api/v1/devices', { name: 'openapi phone' });
    const byDevice = await request(t.tcp, 'GET', '/api/v1/openapi.json', { token: issued.json.data.token });
    assert.equal(byDevice.status, 200);
    assert.deepEqual(byDevice.json, doc);
    const committed = fs.readFileSync(new URL('../../../docs/openapi.json', import.meta.url), 'utf8');
    // Compared whole, reported briefly: the document is hundreds of kilobytes.
    assert.ok(committed === `${JSON.stringify(doc, null, 2)}\n`, 'docs/openapi.json is stale: run npm run openapi');
  });

  it('describes every event on the live stream by its Event.<type> component', async () => {
    const stream = await SseClient.open(t.tcp, '/api/v1/events', t.daemon.operatorToken);
    try {
      const ash = { name: 'ash' };
      const op = { token: t.daemon.operatorToken };
      const post = (method: string, path: string, body?: unknown) =>
        request(t.tcp, method, path, { ...op, ...(body !== undefined ? { body } : {}) });
      await post('POST', '/api/v1/agents/spawn', { template: 'cat', ...ash });
      await post('PUT', '/api/v1/agents/ash/appearance', { color: '#ff8800' });
      await post('POST', '/api/v1/chat/ash/messages', { text: 'hello ash' });
      await post('POST', '/api/v1/chat/ash/read', {});
      await post('POST', '/api/v1/agents/ash/message', { text: 'straight to the pane' });
      await post('POST', '/api/v1/agents/ash/environments', { environments: [] });
      await post('POST', '/api/v1/agents/ash/stop');
      await until('ash stopped on the stream', () => stream.events.some((e) => e.event === 'agent_stopped'), 10_000);
      const types = new Set(stream.events.map((e) => e.event));
      for (const type of ['hello', 'agent_spawned', 'agent_state_changed', 'agent_appearance_changed', 'chat.message'])
        assert.ok(types.has(type), `no ${type} among ${[...types]}`);
      for (const type of ['chat.read', 'agent_message']) assert.ok(types.has(type), `no ${type} among ${[...types]}`);
      const wrong = stream.events.map((e) => contract.judgeComponent(`Event.${e.event}`, e.data)).filter(Boolean);
      assert.deepEqual(wrong, []);
    } finally {
      stream.close();
    }
  });

  it('agrees with the live answers of a tour of the API, successes and refusals alike', async () => {
    const agent = { name: 'den' };
    // System and tokens.
    await call({ method: 'GET', route: '/health' });
    await call({ method: 'GET', route: '/api/v1/version' });
    await call({ method: 'GET', route: '/api/v1/openapi.json' });
    const device = await call({ method: 'POST', route: '/api/v1/devices', body: { name: 'tour phone' } });
    await call({ method: 'POST', route: '/api/v1/devices', body: { name: 'tour phone' } });
    await call({ method: 'POST', route: '/api/v1/devices', body: { name: '' } });
    await call({ method: 'GET', route: '/api/v1/devices' });
    await call({ method: 'PATCH', route: '/api/v1/devices/:id', params: { id: 'tour phone' }, body: { fleet: true } });
    await call({ method: 'PATCH', route: '/api/v1/devices/:id', params: { id: 'nobody' }, body: { fleet: true } });
    await call({ method: 'GET', route: '/api/v1/me' });
    await call({ method: 'DELETE', route: '/api/v1/devices/:id', params: { id: device.json.data.id } });
    await call({ method: 'POST', route: '/api/v1/clients', body: { name: 'tour dash', can_post: true } });
    await call({ method: 'GET', route: '/api/v1/clients' });
    await call({ method: 'DELETE', route: '/api/v1/clients/:id', params: { id: 'tour dash' } });
    await call({ method: 'DELETE', route: '/api/v1/clients/:id' });
    const code = await call({ method: 'POST', route: '/api/v1/devices/pairing-codes', body: { name: 'tour tablet' } });
    await call({ method: 'POST', route: '/api/v1/pair', body: { code: code.json.data.code } });
    await call({ method: 'POST', route: '/api/v1/pair', body: { code: 'used-up' } });
    // Agents and the fleet's state.
    await call({ method: 'POST', route: '/api/v1/agents/spawn', body: { template: 'cat', name: 'den' } });
    await call({ method: 'POST', route: '/api/v1/agents/spawn', body: { template: 'cat', name: 'den' } });
    await call({ method: 'POST', route: '/api/v1/agents/spawn', body: { template: 'nope' } });
    await call({ method: 'GET', route: '/api/v1/agents' });
    await call({ method: 'GET', route: '/api/v1/agents/:name', params: agent });
    await call({ method: 'GET', route: '/api/v1/agents/:name' });
    await call({ method: 'GET', route: '/api/v1/state' });
    await call({ method: 'PUT', route: '/api/v1/agents/:name/appearance', params: agent, body: { emoji: '🦁' } });
    await call({
      method: 'POST',
      route: '/api/v1/agents/:name/environments',
      params: agent,
      body: { environments: [] },
    });
    await call({ method: 'POST', route: '/api/v1/agents/:name/template', params: agent, body: { template: 'cat' } });
    await call({ method: 'POST', route: '/api/v1/agents/:name/restart', params: agent });
    await call({ method: 'POST', route: '/api/v1/agents/:name/stop', params: agent });
    await call({ method: 'POST', route: '/api/v1/agents/:name/start', params: agent });
    await call({ method: 'POST', route: '/api/v1/agents/spawn', body: { template: 'cat', name: 'ivy' } });
    await call({
      method: 'POST',
      route: '/api/v1/agents/:name/rename',
      params: { name: 'ivy' },
      body: { name: 'fig' },
    });
    await call({ method: 'DELETE', route: '/api/v1/agents/:name', params: { name: 'fig' } });
    // Chat, and the device's push settings.
    const thread = { agent: 'den' };
    await call({ method: 'GET', route: '/api/v1/chat/threads' });
    await call({ method: 'GET', route: '/api/v1/chat/open', query: 'agent=den' });
    const posted = { text: 'hello', client_id: 'tour-1' };
    const sent = await call({ method: 'POST', route: '/api/v1/chat/:agent/messages', params: thread, body: posted });
    await call({ method: 'POST', route: '/api/v1/chat/:agent/messages', params: thread, body: posted });
    await call({ method: 'POST', route: '/api/v1/chat/:agent/messages', params: thread, body: { text: 1 } });
    await call({ method: 'GET', route: '/api/v1/chat/:agent/messages', params: thread, query: 'limit=5' });
    await call({ method: 'POST', route: '/api/v1/chat/uploads', query: 'filename=notes.json&agent=den', body: {} });
    await call({ method: 'GET', route: '/api/v1/chat/:agent/messages' });
    await call({ method: 'POST', route: '/api/v1/chat/:agent/read', params: thread, body: {} });
    const card = { ...thread, id: sent.json.data.id };
    await call({ method: 'POST', route: '/api/v1/chat/:agent/messages/:id/answer', params: card, body: { text: 'y' } });
    await call({ method: 'POST', route: '/api/v1/chat/:agent/messages/:id/dismiss', params: card, body: {} });
    await call({ method: 'PUT', route: '/api/v1/chat/:agent/presence', params: thread, body: { viewing: true } });
    await call({ method: 'GET', route: '/api/v1/push/vapid-public-key' });
    const webPush = { provider: 'web-push', endpoint: 'https://push.example/tour', keys: { p256dh: 'p', auth: 'a' } };
    const sub = await call({ method: 'POST', route: '/api/v1/push/subscriptions', body: webPush });
    await call({ method: 'GET', route: '/api/v1/push/subscriptions' });
    const prefs = { mode: 'all' };
    const subscription = { id: sub.json.data.id };
    await call({ method: 'PUT', route: '/api/v1/push/subscriptions/:id/prefs', params: subscription, body: prefs });
    await call({ method: 'DELETE', route: '/api/v1/push/subscriptions/:id', params: subscription });
    await call({ method: 'DELETE', route: '/api/v1/push/subscriptions/:id', params: subscription });
    await call({ method: 'POST', route: '/api/v1/push/test', body: {} });
    await call({ method: 'GET', route: '/api/v1/push/deliveries' });
    // The configuration's views, the live terminal, review and tasks.
    await call({ method: 'GET', route: '/api/v1/environments' });
    await call({ method: 'GET', route: '/api/v1/templates' });
    const rule = { match: { template: 'cat' }, emoji: '🐱' };
    await call({ method: 'PUT', route: '/api/v1/appearance/rules', body: [rule] });
    await call({ method: 'PUT', route: '/api/v1/appearance/rules', body: { rules: 'no' } });
    await call({ method: 'GET', route: '/api/v1/appearance/rules' });
    await call({ method: 'GET', route: '/api/v1/agents/:name/terminal', params: agent });
    await call({
      method: 'POST',
      route: '/api/v1/agents/:name/terminal/keys',
      params: agent,
      body: { keys: ['Enter'] },
    });
    await call({ method: 'GET', route: '/api/v1/agents/:name/changes', params: agent });
    await call({ method: 'GET', route: '/api/v1/agents/:name/changes/diff', params: agent, query: 'path=a.txt' });
    const changes = (action: string, body: unknown) =>
      call({ method: 'POST', route: `/api/v1/agents/:name/changes/${action}`, params: agent, body });
    await changes('commit', { message: 'x' });
    await changes('discard', { paths: ['a.txt'] });
    await changes('push', {});
    await changes('pull-request', { title: 'x', base: '-x' });
    await call({ method: 'GET', route: '/api/v1/tasks' });
    await call({ method: 'POST', route: '/api/v1/tasks/:name/run' });
    await call({ method: 'GET', route: '/api/v1/tasks/:name/runs/:id/log' });
    await call({ method: 'POST', route: '/observe/task-run', body: { type: 'nope' }, socket: true });
    await call({ method: 'POST', route: '/chat/task-failure', body: {}, socket: true });
    // Messages between agents, the harness hooks, the agent tools over HTTP and MCP, the sessions API.
    const asAgent = { token: t.daemon.agentToken, params: agent };
    await call({ method: 'POST', route: '/api/v1/agents/:name/message', params: agent, body: { text: 'hi' } });
    await call({ method: 'POST', route: '/api/agent/:name/message', ...asAgent, body: { to: 'ghost', text: 'hi' } });
    await call({
      method: 'POST',
      route: '/hooks/:event',
      params: { event: 'stop' },
      body: { agent: 'den', payload: {} },
      socket: true,
    });
    await call({ method: 'POST', route: '/api/agent/:name/chat/post', ...asAgent, body: { text: 'from den' } });
    await call({ method: 'POST', route: '/api/agent/:name/chat/history', ...asAgent, body: { limit: 3 } });
    await call({ method: 'POST', route: '/api/agent/:name/chat/ask/withdraw', ...asAgent, body: { message_id: 'x' } });
    await call({ method: 'POST', route: '/api/agent/:name/chat/ask', ...asAgent, body: {} });
    const initialize = {
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'tour', version: '1' } },
    };
    await call({
      method: 'POST',
      route: '/api/agent/:name/mcp',
      ...asAgent,
      body: initialize,
      accept: 'application/json, text/event-stream',
    });
    await call({ method: 'GET', route: '/agents/:name/sessions', params: agent });
    await call({ method: 'GET', route: '/sessions/:id' });
    await call({ method: 'GET', route: '/sessions/:id/messages' });
    await call({ method: 'GET', route: '/sessions/:id/config' });
    await call({ method: 'POST', route: '/sessions/:id/cancel' });
    await call({ method: 'PATCH', route: '/sessions/:id', body: {} });
    await call({ method: 'DELETE', route: '/sessions/:id' });
    await call({ method: 'POST', route: '/agents/:name/chat', params: agent, body: {} });

    const wrong = seen.map(({ call: c, res }) => contract.judge(c.method, c.route, res)).filter((m) => m !== null);
    assert.deepEqual(wrong, []);
    const statuses = new Set(seen.map(({ res }) => Math.floor(res.status / 100)));
    assert.deepEqual([...statuses].sort(), [2, 4], 'the tour meets successes and refusals');
  });
});
