// The CLI waits as long as the daemon holds its request (issue 14 item 1). The daemon holds a permission prompt until
// a person answers it in chat, a spawn until its repository is cloned, a leo_chat_ask until the answer comes; Node's
// global http agent cut each of those after 5 s (and fetch after 5 minutes), which read as "answered in the
// terminal", a failed spawn, a failed ask. Each case runs the real bin/leo.js and answers after 8 s, a person's pace.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it, type TestContext } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { LEO_BIN, runLeoAsync } from '../helpers/cli.js';
import { startTestDaemon } from '../helpers/daemon.js';
import { request } from '../helpers/http.js';
import { until } from '../helpers/wait.js';

const PACE_MS = 8000;
const SHORT_FETCH_TIMEOUTS = fileURLToPath(new URL('../helpers/short-fetch-timeouts.js', import.meta.url));

interface Seen {
  method: string;
  url: string;
  body: string;
}

/** A stand-in daemon on a unix socket in a fresh LEO_HOME: it answers every request `data` after PACE_MS. */
async function slowDaemon(t: TestContext, data: unknown): Promise<{ home: string; socketPath: string; seen: Seen[] }> {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'leo-held-'));
  const socketPath = path.join(home, 'state', 'leo.sock');
  fs.mkdirSync(path.dirname(socketPath));
  const seen: Seen[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      seen.push({ method: req.method!, url: req.url!, body });
      const timer = setTimeout(() => {
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ ok: true, data }));
      }, PACE_MS);
      res.on('close', () => clearTimeout(timer));
    });
  });
  await new Promise<void>((resolve) => server.listen(socketPath, resolve));
  t.after(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
    fs.rmSync(home, { recursive: true, force: true });
  });
  return { home, socketPath, seen };
}

describe('the CLI waits as long as the daemon holds its request', { concurrency: true }, () => {
  it('leo hook permission-request prints the decision the daemon gives 8 s later', async (t) => {
    const decision = JSON.stringify({ hookSpecificOutput: { decision: { behavior: 'allow' } } });
    const d = await slowDaemon(t, { output: decision });
    const payload = { hook_event_name: 'PermissionRequest', tool_name: 'Bash', tool_input: { command: 'touch x' } };
    const started = Date.now();
    const r = await runLeoAsync(
      ['hook', 'permission-request'],
      { ...process.env, LEO_AGENT: 'coder', LEO_SOCKET: d.socketPath },
      JSON.stringify(payload),
    );
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout, decision, `the hook printed nothing after ${Date.now() - started} ms`);
    assert.ok(Date.now() - started >= PACE_MS);
    assert.deepEqual(
      d.seen.map((s) => [s.method, s.url, JSON.parse(s.body)]),
      [['POST', '/hooks/permission-request', { agent: 'coder', payload }]],
    );
  });

  it('leo agent spawn waits for a spawn that takes 8 s (a clone)', async (t) => {
    const d = await slowDaemon(t, { name: 'big', harness: 'claude', workspace: '/w/big' });
    const r = await runLeoAsync(['agent', 'spawn', 'coder', '--repo', 'https://example.com/big.git'], {
      ...process.env,
      LEO_HOME: d.home,
    });
    assert.equal(r.stderr, '');
    assert.equal(r.stdout, 'spawned big (claude, /w/big)\n');
    assert.equal(r.status, 0);
    assert.deepEqual(
      d.seen.map((s) => [s.method, s.url]),
      [['POST', '/api/v1/agents/spawn']],
    );
  });

  it('leo mcp-stdio relays a leo_chat_ask answered in chat 8 s later, past fetch timeouts', async (t) => {
    const d = await startTestDaemon({ config: 'templates:\n  cat: { harness: shell, command: "exec cat" }\n' });
    t.after(() => d.stop());
    const token = d.daemon.operatorToken;
    const spawned = await request(d.tcp, 'POST', '/api/v1/agents/spawn', {
      token,
      body: { template: 'cat', name: 'den' },
    });
    assert.equal(spawned.status, 201, spawned.text);
    const c = new Client({ name: 'held-test', version: '1' });
    await c.connect(
      new StdioClientTransport({
        command: process.execPath,
        // fetch's 5-minute limits, cut to 2 s in the relay: an answer 8 s away is past them.
        args: ['--import', SHORT_FETCH_TIMEOUTS, LEO_BIN, 'mcp-stdio'],
        env: {
          ...(process.env as Record<string, string>),
          LEO_MCP_URL: `http://127.0.0.1:${d.daemon.port}/api/agent/den/mcp`,
          LEO_AGENT_TOKEN: d.daemon.agentToken,
        },
      }),
    );
    t.after(() => c.close());
    const started = Date.now();
    const asking = c.callTool({ name: 'leo_chat_ask', arguments: { question: 'Ship it?', options: ['yes', 'no'] } });
    const ask = await until(
      'the ask in the thread',
      async () =>
        (await request(d.tcp, 'GET', '/api/v1/chat/den/messages', { token })).json.data.messages.find(
          (m: { kind: string; state: string }) => m.kind === 'ask' && m.state === 'open',
        ),
      10_000,
    );
    await new Promise((r) => setTimeout(r, PACE_MS - (Date.now() - started)));
    const answered = await request(d.tcp, 'POST', `/api/v1/chat/den/messages/${ask.id}/answer`, {
      token,
      body: { values: ['yes'] },
    });
    assert.equal(answered.status, 200, answered.text);
    const result = await asking;
    assert.equal(result.isError, undefined, JSON.stringify(result.content));
    assert.deepEqual((result.structuredContent as { values: string[] }).values, ['yes']);
  });
});
