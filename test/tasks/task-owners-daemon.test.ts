// Task output and chat in the real daemon (leo-chat.md: Config, Agent tools, Task failure cards, Reminders;
// observability-api.md: recent_messages, agent_message): a task's owner by its resolved workspace, the fallback note
// with every run's output, a persistent task's agent spawned with the task's environments, Leo Chat messages in
// recent_messages, and `chat.enabled: false` turning Leo Chat off.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { CHAT_OFF } from '../../src/chat/chat-off.js';
import type { ManualClock } from '../../src/core/clock.js';
import { runLeoAsync } from '../helpers/cli.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { request } from '../helpers/http.js';
import { fireTask, runFinished } from '../helpers/task-runs.js';
import { SseClient } from '../helpers/sse-client.js';
import { testConfig } from '../helpers/temp-home.js';
import { until } from '../helpers/wait.js';
import { StateSnapshot } from '../../src/wire/fleet.js';

const envOf = (t: TestDaemon) => ({ ...process.env, LEO_HOME: t.home, LEO_USER_HOME: t.home });

function config(denWorkspace: string, keeperWorkspace: string, chat = '', switcherModel = 'task-model'): string {
  return `${chat}
templates:
  cat: { harness: shell, command: "exec cat" }
  not-claude: { harness: claude, command: /bin/cat }
  den-work: { harness: shell, command: "exec cat", workspace: ${JSON.stringify(denWorkspace)} }
environments:
  flavour: { TASK_FLAVOUR: mint }
tasks:
  by-template:
    schedule: "0 0 1 1 *"
    template: den-work
    command: 'exit 3'
    prompt: fail where den works
    notify_on_fail: true
  orphan:
    schedule: "0 0 1 1 *"
    harness: shell
    command: 'exit 5'
    prompt: fail for nobody
    notify_on_fail: true
    owner: ghost
  keeper:
    schedule: "0 0 1 1 *"
    runtime: persistent
    template: cat
    workspace: ${JSON.stringify(keeperWorkspace)}
    environments: [flavour]
    prompt: keep going
  switcher:
    schedule: "0 0 1 1 *"
    runtime: persistent
    template: not-claude
    harness: shell
    model: ${switcherModel}
    prompt: switch
`;
}

describe('task owners, task output and Leo Chat messages in the daemon', () => {
  let t: TestDaemon;
  let sse: SseClient;
  const thread = async (agent: string) =>
    (await t.op('GET', `/api/v1/chat/${agent}/messages?limit=200`)).json.data?.messages ?? [];
  const finished = (task: string, runId: string) => runFinished(t, task, runId, 20_000);

  before(async () => {
    t = await startTestDaemon({ config: '' });
    const den = path.join(t.home, 'den-work');
    fs.mkdirSync(den);
    fs.writeFileSync(path.join(t.home, 'leo.yaml'), testConfig(config(den, path.join(t.home, 'keeper-work'))));
    assert.equal((await t.daemon.reloadConfig('test')).ok, true);
    sse = await SseClient.open(t.tcp, '/api/v1/events', t.daemon.operatorToken);
    await sse.waitFor(1);
    assert.equal((await t.op('POST', '/api/v1/agents/spawn', { template: 'den-work', name: 'den' })).status, 201);
  });
  after(async () => {
    sse.close();
    await t.stop();
  });

  it("a task without its own workspace belongs to the agent in its template's workspace", async () => {
    const r = await t.op('POST', '/api/v1/tasks/by-template/run');
    assert.equal(r.status, 202, r.text);
    assert.equal((await finished('by-template', r.json.data.run_id)).status, 'failed');
    const card = await until(
      'the card in den',
      async () => (await thread('den')).find((m: any) => m.run_id === r.json.data.run_id),
      5000,
    );
    assert.equal(card.task, 'by-template');
    assert.equal((await thread('assistant')).filter((m: any) => m.task === 'by-template').length, 0);

    // leo run resolves the owner the same way.
    const run = await runLeoAsync(['run', 'by-template'], envOf(t));
    assert.equal(run.status, 1, run.stdout + run.stderr);
    const runId = /run (\S+) failed/.exec(run.stdout)![1]!;
    await until(
      'the leo run card in den',
      async () => (await thread('den')).find((m: any) => m.run_id === runId),
      5000,
    );
  });

  it("a task run's output in assistant for an owner that is no agent comes with the note, once per run", async () => {
    const asRun = (runId: string, text: string) =>
      request(t.tcp, 'POST', '/api/agent/assistant/chat/post', {
        token: t.daemon.agentToken,
        headers: { 'x-leo-task': 'orphan', 'x-leo-run-id': runId },
        body: { text },
      });
    for (const [runId, text] of [
      ['run-a', 'first post'],
      ['run-a', 'second post'],
      ['run-b', 'another run'],
    ])
      assert.equal((await asRun(runId!, text!)).status, 200);
    const messages = await thread('assistant');
    const lines = messages
      .filter((m: any) => m.task === 'orphan' || (m.kind === 'system' && /ghost/.test(m.text)))
      .map((m: any) => (m.kind === 'system' ? 'note' : m.text));
    assert.deepEqual(lines, ['note', 'first post', 'second post', 'note', 'another run']);
    assert.match(messages.find((m: any) => m.kind === 'system').text, /owner "ghost" is not an agent/);
  });

  it("a persistent task's own agent is spawned with the task's environments and workspace", async () => {
    const r = await t.op('POST', '/api/v1/tasks/keeper/run');
    assert.equal(r.status, 202, r.text);
    assert.equal((await finished('keeper', r.json.data.run_id)).status, 'succeeded');
    const keeper = (await t.op('GET', '/api/v1/state')).json.data.agents.find((a: any) => a.name === 'keeper');
    assert.deepEqual(
      [keeper.environments, keeper.environments_source, keeper.workspace],
      [['flavour'], 'override', path.join(t.home, 'keeper-work')],
    );
  });

  it('only a persistent task names a template: a oneshot one resolves through its template but carries none', async () => {
    const tasks = (await t.op('GET', '/api/v1/state')).json.data.tasks;
    assert.equal(tasks.find((x: any) => x.name === 'switcher').template, 'not-claude');
    assert.equal('template' in tasks.find((x: any) => x.name === 'by-template'), false);
  });

  it("a persistent task's model and harness are its agent's, and every report of them names what the agent runs", async () => {
    const state = async () => await t.get('/api/v1/state', StateSnapshot);
    const reported = (x: any) => [x.harness, x.model];
    const runEvents = (runId: string) =>
      sse.events.filter((e) => e.event.startsWith('task_run_') && e.data.run?.id === runId);
    const before = (await state()).tasks;
    assert.deepEqual(reported(before.find((x: any) => x.name === 'switcher')), ['shell', 'task-model']);

    const first = await fireTask(t, 'switcher');
    assert.equal((await finished('switcher', first)).status, 'succeeded');
    const agent = (await state()).agents.find((a: any) => a.name === 'switcher');
    assert.deepEqual(reported(agent), ['shell', 'task-model'], "the agent runs on the task's, not the template's");
    await sse.waitUntil(() => runEvents(first).length === 2);
    for (const e of runEvents(first)) assert.deepEqual(reported(e.data.run), ['shell', 'task-model'], e.event);

    // The task's model changes in leo.yaml while its agent lives on: the agent keeps what it was spawned with, and
    // that is what the task and its next run report.
    fs.writeFileSync(
      path.join(t.home, 'leo.yaml'),
      testConfig(config(path.join(t.home, 'den-work'), path.join(t.home, 'keeper-work'), '', 'newer-model')),
    );
    assert.equal((await t.daemon.reloadConfig('test')).ok, true);
    assert.deepEqual(reported((await state()).tasks.find((x: any) => x.name === 'switcher')), ['shell', 'task-model']);
    const second = await fireTask(t, 'switcher');
    await finished('switcher', second);
    await sse.waitUntil(() => runEvents(second).length === 2);
    for (const e of runEvents(second)) assert.deepEqual(reported(e.data.run), ['shell', 'task-model'], e.event);
  });

  it('a Leo Chat message counts in recent_messages and agent_message, with no from (a human sent it)', async () => {
    const mark = sse.events.length;
    const sent = await t.op('POST', '/api/v1/chat/den/messages', { text: 'hello from the phone' });
    assert.equal(sent.status, 201, sent.text);
    await until(
      'delivered',
      async () => (await thread('den')).find((m: any) => m.id === sent.json.data.id && m.state === 'delivered'),
      10_000,
    );
    await sse.waitUntil(() => sse.events.slice(mark).some((e) => e.event === 'agent_message'));
    const ev = sse.events.slice(mark).find((e) => e.event === 'agent_message')!;
    assert.deepEqual([ev.data.to, 'from' in ev.data], ['den', false]);
    const last = (await t.op('GET', '/api/v1/state')).json.data.recent_messages.at(-1);
    assert.deepEqual([last.to, 'from' in last], ['den', false]);
  });
});

describe('chat.enabled: false', () => {
  let t: TestDaemon;
  const setChat = async (enabled: boolean) => {
    fs.writeFileSync(
      path.join(t.home, 'leo.yaml'),
      testConfig(config(t.home, path.join(t.home, 'keeper-work'), `chat:\n  enabled: ${enabled}\n`)),
    );
    assert.equal((await t.daemon.reloadConfig('test')).ok, true);
  };

  before(async () => {
    t = await startTestDaemon({ config: '' });
    await setChat(false);
    assert.equal((await t.op('POST', '/api/v1/agents/spawn', { template: 'cat', name: 'den' })).status, 201);
  });
  after(async () => t.stop());

  it('every chat route answers 503 chat_disabled, and a caller without a token still gets its 401', async () => {
    for (const [method, p, body] of [
      ['GET', '/api/v1/chat/threads'],
      ['GET', '/api/v1/chat/den/messages'],
      ['POST', '/api/v1/chat/den/messages', { text: 'hi' }],
      ['POST', '/api/v1/chat/den/read', {}],
    ] as const) {
      const r = await t.op(method, p, body);
      assert.deepEqual([r.status, r.json.code, r.json.error], [503, 'chat_disabled', CHAT_OFF], `${method} ${p}`);
    }
    assert.equal((await request(t.tcp, 'GET', '/api/v1/chat/threads')).status, 401);
    const upload = await request(t.tcp, 'POST', '/api/v1/chat/uploads?filename=a.txt', {
      token: t.daemon.operatorToken,
      rawBody: 'x',
      headers: { 'content-type': 'text/plain' },
    });
    assert.equal(upload.status, 503);
  });

  it("a permission prompt is not posted: the hook gives no decision at once, and Claude's own dialog asks", async () => {
    const payload = { hook_event_name: 'PermissionRequest', tool_name: 'Bash', tool_input: { command: 'touch x' } };
    const answered = await Promise.race([
      request(t.socket, 'POST', '/hooks/permission-request', { body: { agent: 'den', payload } }),
      new Promise<null>((resolve) => setTimeout(() => resolve(null), 3000)),
    ]);
    assert.ok(answered, 'the hook was held for an answer in chat');
    assert.deepEqual([answered.status, answered.json.data], [200, {}]);
  });

  it('the agent tools answer the same error over HTTP and as an MCP tool result', async () => {
    const post = await request(t.tcp, 'POST', '/api/agent/den/chat/post', {
      token: t.daemon.agentToken,
      body: { text: 'hello' },
    });
    assert.deepEqual([post.status, post.json.code], [503, 'chat_disabled']);
    const client = new Client({ name: 'test', version: '1' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${t.daemon.port}/api/agent/den/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${t.daemon.agentToken}` } },
      }),
    );
    try {
      const r = await client.callTool({ name: 'leo_chat_post', arguments: { text: 'hello' } });
      assert.equal(r.isError, true);
      assert.deepEqual(r.content, [{ type: 'text', text: CHAT_OFF }]);
    } finally {
      await client.close();
    }
  });

  it('no failure card is posted: leo run warns, the daemon posts none, and nothing shows once chat is back on', async () => {
    const run = await runLeoAsync(['run', 'orphan'], envOf(t));
    assert.equal(run.status, 1, 'the run result is unchanged');
    assert.ok(run.stderr.startsWith(`leo run: warning: no failure card was posted: ${CHAT_OFF}`), run.stderr);
    assert.equal((await runFinished(t, 'orphan', await fireTask(t, 'orphan'), 20_000)).status, 'failed');
    await setChat(true);
    const threads = (await t.op('GET', '/api/v1/chat/threads')).json.data;
    assert.deepEqual(
      threads.filter((x: any) => x.last_message !== null),
      [],
      'no card, in assistant or anywhere',
    );
  });

  it('a reminder that comes due while chat is off waits, and fires late once it is back on', async () => {
    const clock = t.clock as ManualClock;
    const client = new Client({ name: 'test', version: '1' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${t.daemon.port}/api/agent/den/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${t.daemon.agentToken}` } },
      }),
    );
    try {
      const at = new Date(clock.now() + 3600_000).toISOString();
      const r = await client.callTool({ name: 'leo_chat_schedule', arguments: { text: 'stretch', at } });
      assert.equal(r.isError, undefined, JSON.stringify(r.content));
    } finally {
      await client.close();
    }
    await setChat(false);
    clock.advance(2 * 3600_000);
    await sleep(100);
    await setChat(true);
    const den = async () => (await t.op('GET', '/api/v1/chat/den/messages')).json.data?.messages ?? [];
    assert.deepEqual(await den(), [], 'nothing fired while chat was off');
    clock.advance(60_000);
    const fired = await until(
      'the reminder',
      async () => (await den()).find((m: any) => m.text.startsWith('stretch')),
      5000,
    );
    assert.match(fired.text, /\n_\(late — scheduled for .+\)_$/);
  });
});
