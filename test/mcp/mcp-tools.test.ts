import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { request } from '../helpers/http.js';

const CONFIG = `
templates:
  cat: { harness: shell, command: "exec cat" }
`;

describe("Leo's MCP endpoint, through the SDK's own Streamable HTTP client", () => {
  let t: TestDaemon;
  let client: Client;

  const connect = async (agent: string, token: string, headers: Record<string, string> = {}) => {
    const c = new Client({ name: 'test', version: '1' });
    await c.connect(
      new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${t.daemon.port}/api/agent/${agent}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${token}`, ...headers } },
      }),
    );
    return c;
  };

  before(async () => {
    t = await startTestDaemon({ config: CONFIG });
    const r = await t.op('POST', '/api/v1/agents/spawn', { template: 'cat', name: 'den' });
    assert.equal(r.status, 201);
    client = await connect('den', t.daemon.agentToken);
  });
  after(async () => {
    await client.close();
    await t.stop();
  });

  it('lists the tools with JSON Schemas generated from the zod inputs', async () => {
    const { tools } = await client.listTools();
    const post = tools.find((x) => x.name === 'leo_chat_post');
    assert.ok(post);
    assert.deepEqual(Object.keys((post.inputSchema as { properties: object }).properties).sort(), ['files', 'text']);
    assert.ok(tools.some((x) => x.name === 'leo_chat_history'));
  });

  it('leo_chat_post posts text and files into the thread; leo_chat_history reads it back', async () => {
    const file = path.join(t.home, 'report.txt');
    fs.writeFileSync(file, 'the report');
    const posted = await client.callTool({ name: 'leo_chat_post', arguments: { text: 'see attached', files: [file] } });
    assert.equal(posted.isError, undefined);
    const id = (posted.structuredContent as { message_id: string }).message_id;
    const page = (await t.op('GET', '/api/v1/chat/den/messages')).json.data;
    const m = page.messages.find((x: { id: string }) => x.id === id);
    assert.equal(m.kind, 'file');
    assert.equal(m.direction, 'out');
    assert.equal(m.text, 'see attached');
    assert.deepEqual(
      m.attachments.map((a: { filename: string; bytes: number; mime: string }) => [a.filename, a.bytes, a.mime]),
      [['report.txt', 10, 'text/plain']],
    );
    const history = await client.callTool({ name: 'leo_chat_history', arguments: { limit: 5 } });
    const messages = (history.structuredContent as { messages: { id: string }[] }).messages;
    assert.equal(messages.at(-1)!.id, id);
  });

  it('bad tool input is a tool error, not a crash; a task run posts task cards', async () => {
    const empty = await client.callTool({ name: 'leo_chat_post', arguments: { text: '  ' } });
    assert.equal(empty.isError, true);
    const missing = await client.callTool({ name: 'leo_chat_post', arguments: { text: 'x', files: ['/nope/x'] } });
    assert.equal(missing.isError, true);
    assert.match(JSON.stringify(missing.content), /file not found/);
    const task = await connect('den', t.daemon.agentToken, { 'x-leo-task': 'daily-news', 'x-leo-run-id': 'run-1' });
    const card = await task.callTool({ name: 'leo_chat_post', arguments: { text: 'news is in' } });
    await task.close();
    const id = (card.structuredContent as { message_id: string }).message_id;
    const page = (await t.op('GET', '/api/v1/chat/den/messages')).json.data;
    const m = page.messages.find((x: { id: string }) => x.id === id);
    assert.deepEqual([m.kind, m.task, m.run_id], ['task', 'daily-news', 'run-1']);
  });

  it('only the agent token on TCP; unknown agents 404', async () => {
    const body = { jsonrpc: '2.0', id: 1, method: 'tools/list' };
    const headers = { accept: 'application/json, text/event-stream' };
    assert.equal((await request(t.tcp, 'POST', '/api/agent/den/mcp', { body, headers })).status, 401);
    assert.equal(
      (await request(t.tcp, 'POST', '/api/agent/den/mcp', { body, headers, token: t.daemon.operatorToken })).status,
      403,
    );
    assert.equal(
      (await request(t.tcp, 'POST', '/api/agent/ghost/mcp', { body, headers, token: t.daemon.agentToken })).status,
      404,
    );
  });

  it('refuses a leo_dispatch subagent with 403 and a reason', async () => {
    const body = { jsonrpc: '2.0', id: 1, method: 'tools/list' };
    const headers = { accept: 'application/json, text/event-stream', 'x-leo-dispatch': 'sub-1' };
    const r = await request(t.tcp, 'POST', '/api/agent/den/mcp', { body, headers, token: t.daemon.agentToken });
    assert.equal(r.status, 403);
    assert.match(r.json.error, /leo_dispatch subagents cannot use/);
    const rest = await request(t.tcp, 'POST', '/api/agent/den/chat/post', {
      token: t.daemon.agentToken,
      headers: { 'x-leo-dispatch': '1' },
      body: { text: 'from a subagent' },
    });
    assert.equal(rest.status, 403);
    const page = (await t.op('GET', '/api/v1/chat/den/messages')).json.data;
    assert.ok(!page.messages.some((m: { text: string }) => m.text === 'from a subagent'));
  });
});

describe('the same tools as HTTP routes (/api/agent/{name}/chat/*)', () => {
  let t: TestDaemon;
  before(async () => {
    t = await startTestDaemon({ config: CONFIG });
    await t.op('POST', '/api/v1/agents/spawn', { template: 'cat', name: 'den' });
  });
  after(() => t.stop());

  it('post, history, ask (answered while it blocks) and withdraw with the spec status codes', async () => {
    const agent = (p: string, body: unknown) =>
      request(t.tcp, 'POST', `/api/agent/den/chat/${p}`, { token: t.daemon.agentToken, body });
    const posted = await agent('post', { text: 'hi from REST' });
    assert.equal(posted.status, 200, posted.text);
    const history = await agent('history', { limit: 1 });
    assert.equal(history.json.data.messages[0].text, 'hi from REST');
    assert.equal((await agent('post', { text: 'x', bogus: 1 })).status, 400);
    const bare = await agent('ask', { question: 'Bare?', options: ['a'] });
    assert.equal(bare.status, 400, 'bare-string options are MCP-only');

    const blocked = agent('ask', { question: 'Pick', options: [{ value: 'a', label: 'A' }] });
    let id = '';
    for (let i = 0; i < 50 && !id; i++) {
      await sleep(40);
      const page = (await t.op('GET', '/api/v1/chat/den/messages')).json.data;
      id = page.messages.find((m: { kind: string; state: string }) => m.kind === 'ask' && m.state === 'open')?.id ?? '';
    }
    await t.op('POST', `/api/v1/chat/den/messages/${id}/answer`, { values: ['a'] });
    assert.deepEqual((await blocked).json.data, { message_id: id, values: ['a'], labels: ['A'], text: '' });
    const settled = await agent('ask/withdraw', { message_id: id });
    assert.equal(settled.status, 409);
    const theirs = await request(t.tcp, 'POST', '/api/agent/other/chat/ask/withdraw', {
      token: t.daemon.agentToken,
      body: { message_id: id },
    });
    assert.equal(theirs.status, 404, 'an unknown agent in the path');
  });
});

describe('leo mcp-stdio relays the tools for stdio-only harnesses', () => {
  it('lists and calls them through the daemon, a task run named by its environment', async () => {
    const { StdioClientTransport } = await import('@modelcontextprotocol/sdk/client/stdio.js');
    const { LEO_BIN } = await import('../helpers/cli.js');
    const t = await startTestDaemon({ config: CONFIG });
    try {
      await t.op('POST', '/api/v1/agents/spawn', { template: 'cat', name: 'den' });
      const c = new Client({ name: 'stdio-test', version: '1' });
      await c.connect(
        new StdioClientTransport({
          command: process.execPath,
          args: [LEO_BIN, 'mcp-stdio'],
          env: {
            ...(process.env as Record<string, string>),
            LEO_MCP_URL: `http://127.0.0.1:${t.daemon.port}/api/agent/den/mcp`,
            LEO_AGENT_TOKEN: t.daemon.agentToken,
            LEO_TASK: 'nightly',
            LEO_RUN_ID: 'run-7',
          },
        }),
      );
      const names = (await c.listTools()).tools.map((x) => x.name).sort();
      assert.deepEqual(names, [
        'leo_chat_ask',
        'leo_chat_ask_withdraw',
        'leo_chat_history',
        'leo_chat_post',
        'leo_chat_schedule',
        'leo_chat_schedule_cancel',
        'leo_chat_schedule_list',
      ]);
      const r = await c.callTool({ name: 'leo_chat_post', arguments: { text: 'over stdio' } });
      assert.equal(r.isError, undefined);
      await c.close();
      const page = (await t.op('GET', '/api/v1/chat/den/messages')).json.data;
      const m = page.messages.at(-1);
      assert.deepEqual([m.text, m.kind, m.task, m.run_id], ['over stdio', 'task', 'nightly', 'run-7']);
    } finally {
      await t.stop();
    }
  });

  it('a call the stdio harness cancels is cancelled in the daemon too: a later answer is delivered as a reply', async () => {
    const { StdioClientTransport } = await import('@modelcontextprotocol/sdk/client/stdio.js');
    const { LEO_BIN } = await import('../helpers/cli.js');
    const { until } = await import('../helpers/wait.js');
    const t = await startTestDaemon({ config: CONFIG });
    const c = new Client({ name: 'stdio-test', version: '1' });
    try {
      await t.op('POST', '/api/v1/agents/spawn', { template: 'cat', name: 'den' });
      await c.connect(
        new StdioClientTransport({
          command: process.execPath,
          args: [LEO_BIN, 'mcp-stdio'],
          env: {
            ...(process.env as Record<string, string>),
            LEO_MCP_URL: `http://127.0.0.1:${t.daemon.port}/api/agent/den/mcp`,
            LEO_AGENT_TOKEN: t.daemon.agentToken,
          },
        }),
      );
      const giveUp = new AbortController();
      const call = c
        .callTool({ name: 'leo_chat_ask', arguments: { question: 'Given up over stdio?' } }, undefined, {
          signal: giveUp.signal,
        })
        .catch((err: Error) => err);
      const messages = async () => (await t.op('GET', '/api/v1/chat/den/messages')).json.data.messages;
      const ask = await until('the ask', async () => (await messages()).find((m: any) => m.kind === 'ask'), 10_000, 50);
      giveUp.abort('interrupted');
      assert.ok((await call) instanceof Error);
      await sleep(300);
      const answered = await t.op('POST', `/api/v1/chat/den/messages/${ask.id}/answer`, { text: 'yes, later' });
      assert.equal(answered.status, 200, answered.text);
      const reply = await until(
        'the late answer',
        async () => (await messages()).find((m: any) => m.reply_to === ask.id),
        5000,
        50,
      );
      assert.deepEqual([reply.direction, reply.text], ['in', 'yes, later']);
    } finally {
      await c.close();
      await t.stop();
    }
  });
});
