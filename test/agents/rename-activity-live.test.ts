import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { z } from 'zod';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { ManualClock } from '../../src/core/clock.js';
import { startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { request } from '../helpers/http.js';
import { SseClient, type SseMessage } from '../helpers/sse-client.js';
import { StateSnapshot } from '../../src/wire/fleet.js';
import { MessagePage, Thread } from '../../src/wire/message.js';

const CONFIG = `
templates:
  printer:
    harness: shell
    command: "for i in 1 2 3 4 5 6; do echo step $i; sleep 0.5; done; exec sleep 600"
  sleeper:
    harness: shell
    command: "exec sleep 600"
`;

const RFC3339 = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?([+-]\d\d:\d\d|Z)$/;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Moves the daemon's clock in sweep-sized steps, giving each sweep real time to reach tmux and come back. */
async function tick(clock: ManualClock, ms: number, step = 2000): Promise<void> {
  for (let done = 0; done < ms; done += step) {
    clock.advance(step);
    await sleep(150);
  }
}

describe('activity and rename through the real daemon', () => {
  let t: TestDaemon;
  let sse: SseClient;
  let token: string;
  const since = (n: number): SseMessage[] => sse.events.slice(n);
  const agentIn = async (name: string) =>
    (await t.get('/api/v1/state', StateSnapshot)).agents.find((a) => a.name === name);
  /** Spawns, and waits for its agent_spawned to arrive, so a later mark is not ahead of it. */
  const spawn = async (name: string, template: string) => {
    const mark = sse.events.length;
    assert.equal((await t.op('POST', '/api/v1/agents/spawn', { template, name })).status, 201);
    await sse.waitUntil(() => since(mark).some((e) => e.event === 'agent_spawned' && e.data.agent.name === name));
  };
  const tmux = (...args: string[]) =>
    spawnSync('tmux', ['-S', path.join(t.home, 'state', 'tmux.sock'), ...args], { encoding: 'utf8' });
  const names = (events: SseMessage[]) =>
    events.map((e) => [e.event, typeof e.data.agent === 'string' ? e.data.agent : e.data.agent.name]);

  before(async () => {
    t = await startTestDaemon({ config: CONFIG });
    token = t.daemon.operatorToken;
    sse = await SseClient.open(t.tcp, '/api/v1/events', token);
    await sse.waitFor(1);
  });
  after(async () => {
    sse.close();
    await t.stop();
  });

  it('agent_activity carries last_activity_at; it outlives a stop and a rename, and leaves with a removal', async () => {
    const mark = sse.events.length;
    await spawn('p1', 'printer');
    let working: SseMessage | undefined;
    for (let i = 0; i < 30 && !working; i++) {
      await tick(t.clock as ManualClock, 2000);
      working = since(mark).find((e) => e.event === 'agent_activity' && e.data.activity === 'working');
    }
    assert.ok(working, 'agent_activity working');
    assert.match(working.data.last_activity_at, RFC3339, 'the event carries last_activity_at');
    await sleep(3500); // the loop finishes printing
    await tick(t.clock as ManualClock, 20_000);
    const idle = since(mark).find((e) => e.event === 'agent_activity' && e.data.activity === 'idle');
    assert.ok(idle, 'agent_activity idle');
    const lastSeen = (await agentIn('p1'))!.last_activity_at;
    assert.match(lastSeen!, RFC3339);
    assert.equal(idle.data.last_activity_at, lastSeen, 'the event and /state agree');

    assert.equal((await t.op('POST', '/api/v1/agents/p1/stop')).status, 200);
    await tick(t.clock as ManualClock, 2000);
    let a = await agentIn('p1');
    assert.deepEqual([a!.status, a!.activity, a!.last_activity_at], ['stopped', 'unknown', lastSeen], 'last seen');
    const gone = since(mark)
      .filter((e) => e.event === 'agent_activity')
      .at(-1)!;
    assert.deepEqual([gone.data.activity, gone.data.last_activity_at], ['unknown', lastSeen]);

    assert.equal((await t.op('POST', '/api/v1/agents/p1/rename', { name: 'p9' })).status, 200);
    assert.equal((await agentIn('p9'))!.last_activity_at, lastSeen, 'a rename keeps last seen');
    // A new agent under the old name, or under a removed agent's name, starts with no history.
    await spawn('p1', 'sleeper');
    assert.equal((await agentIn('p1'))!.last_activity_at, null, 'the renamed agent left the old name');
    assert.equal((await t.op('DELETE', '/api/v1/agents/p9')).status, 200);
    await spawn('p9', 'sleeper');
    a = await agentIn('p9');
    assert.equal(a!.last_activity_at, null, 'the removed agent left the tracker');
    for (const n of ['p1', 'p9']) assert.equal((await t.op('DELETE', `/api/v1/agents/${n}`)).status, 200);
  });

  it('a rename tmux refuses publishes nothing and changes nothing', async () => {
    await spawn('den', 'sleeper');
    // A session of the new name that Leo does not know (left over by hand) makes tmux refuse the rename.
    assert.equal(tmux('new-session', '-d', '-s', 'leo-taken', 'sleep 600').status, 0);
    const mark = sse.events.length;
    const r = await t.op('POST', '/api/v1/agents/den/rename', { name: 'taken' });
    assert.notEqual(r.status, 200, r.text);
    await tick(t.clock as ManualClock, 2000);
    assert.deepEqual(
      since(mark).filter((e) => e.event !== 'agent_activity'),
      [],
      'no departure that never happened',
    );
    assert.equal((await agentIn('den'))!.status, 'running');
    assert.equal(await agentIn('taken'), undefined);
    tmux('kill-session', '-t', '=leo-taken');
    assert.equal((await t.op('DELETE', '/api/v1/agents/den')).status, 200);
  });

  it('a rename during crash back-off restarts the agent under its new name', async () => {
    await spawn('crashy', 'sleeper');
    const pid = Number(tmux('display-message', '-p', '-t', '=leo-crashy:', '#{pane_pid}').stdout.trim());
    assert.ok(pid > 0);
    const mark = sse.events.length;
    process.kill(pid, 'SIGKILL');
    // Sweeps without moving the clock past the 1 s back-off: the agent waits in starting.
    for (let i = 0; i < 40 && (await agentIn('crashy'))!.status !== 'starting'; i++) {
      (t.clock as ManualClock).advance(2000);
      await sleep(100);
      if ((await agentIn('crashy'))!.status === 'starting') break;
    }
    assert.equal((await agentIn('crashy'))!.status, 'starting');
    const renamed = sse.events.length;
    assert.equal((await t.op('POST', '/api/v1/agents/crashy/rename', { name: 'steady' })).status, 200);
    await sse.waitUntil(() => since(renamed).some((e) => e.event === 'agent_spawned'));
    assert.deepEqual(names(since(renamed).filter((e) => e.event !== 'agent_activity')).slice(0, 2), [
      ['agent_stopped', 'crashy'],
      ['agent_spawned', 'steady'],
    ]);
    assert.equal(since(renamed)[1]!.data.agent.status, 'starting');
    await tick(t.clock as ManualClock, 4000, 1000);
    const a = await agentIn('steady');
    assert.equal(a!.status, 'running', 'not stranded in starting');
    assert.equal(tmux('has-session', '-t', '=leo-steady').status, 0);
    assert.ok(
      since(mark).some(
        (e) => e.event === 'agent_state_changed' && e.data.agent === 'steady' && e.data.status === 'running',
      ),
    );
    assert.equal((await t.op('DELETE', '/api/v1/agents/steady')).status, 200);
  });

  it('the thread follows a renamed agent: messages, attachments, reminders, read marker, chat sessions, replies', async () => {
    await spawn('den', 'sleeper');
    const d = t.daemon;
    const upload = await request(t.tcp, 'POST', '/api/v1/chat/uploads?agent=den&filename=note.txt', {
      token,
      headers: { 'content-type': 'text/plain' },
      rawBody: 'the note',
    });
    assert.equal(upload.status, 201, upload.text);
    const sent = await t.op('POST', '/api/v1/chat/den/messages', {
      text: 'hello den',
      attachments: [upload.json.data.id],
    });
    assert.equal(sent.status, 201, sent.text);
    const posted = await request(t.tcp, 'POST', '/api/agent/den/chat/post', {
      token: d.agentToken,
      body: { text: 'hello owner' },
    });
    assert.equal(posted.status, 200, posted.text);
    assert.equal((await t.op('POST', '/api/v1/chat/den/read', { up_to: posted.json.data.message_id })).status, 200);
    const tool = async (agent: string, name: string, args: Record<string, unknown>) => {
      const c = new Client({ name: 'test', version: '1' });
      await c.connect(
        new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${d.port}/api/agent/${agent}/mcp`), {
          requestInit: { headers: { authorization: `Bearer ${d.agentToken}` } },
        }),
      );
      const r = (await c.callTool({ name, arguments: args })) as { isError?: boolean; structuredContent?: any };
      await c.close();
      return r;
    };
    const at = new Date(t.clock.now() + 3600_000).toISOString().replace(/\.\d+Z$/, 'Z');
    assert.equal((await tool('den', 'leo_chat_schedule', { text: 'stand-up', at })).isError, undefined);
    // The rows a chat session and reply capture keep, as their own code writes them.
    d.db
      .prepare(
        `INSERT INTO chat_sessions (id, agent_name, status, created_at, updated_at) VALUES ('s1', 'den', 'active', 'x', 'x')`,
      )
      .run();
    d.db.prepare(`INSERT INTO reply_transcripts (agent, path) VALUES ('den', '/tmp/t.jsonl')`).run();
    d.db
      .prepare(
        `INSERT INTO reply_awaiting (message_id, agent, prompt, since_ms, delivered) VALUES ('m1', 'den', 'p', 1, 1)`,
      )
      .run();

    assert.equal((await t.op('POST', '/api/v1/agents/den/rename', { name: 'lair' })).status, 200);

    const { messages: thread } = await t.get('/api/v1/chat/lair/messages', MessagePage);
    assert.deepEqual(
      thread.filter((m) => m.text.startsWith('hello')).map((m) => [m.agent, m.text]),
      [
        ['lair', 'hello den'],
        ['lair', 'hello owner'],
      ],
    );
    assert.equal((await t.op('GET', '/api/v1/chat/den/messages')).status, 404, 'no thread left under the old name');
    const threads = await t.get('/api/v1/chat/threads', z.array(Thread));
    assert.equal(
      threads.some((x) => x.agent === 'den'),
      false,
      'the thread is not split',
    );
    const file = await t.op('GET', `/api/v1/chat/lair/attachments/${upload.json.data.id}`);
    assert.equal(file.status, 200);
    assert.equal(file.text, 'the note');
    const root = path.join(d.paths.stateDir, 'chat', 'attachments');
    assert.equal(fs.existsSync(path.join(root, 'den')), false, 'the attachments folder moved');
    assert.ok(fs.existsSync(path.join(root, 'lair', upload.json.data.id, 'note.txt')));
    const reminders = (await tool('lair', 'leo_chat_schedule_list', {})).structuredContent.reminders as {
      text: string;
    }[];
    assert.deepEqual(
      reminders.map((r) => r.text),
      ['stand-up'],
    );
    const keyed = (sql: string) => d.db.prepare(sql).pluck().all();
    assert.deepEqual(keyed(`SELECT agent_name FROM chat_sessions WHERE id = 's1'`), ['lair']);
    assert.deepEqual(keyed(`SELECT agent FROM reply_transcripts`), ['lair']);
    assert.deepEqual(keyed(`SELECT agent FROM reply_awaiting WHERE message_id = 'm1'`), ['lair']);
    assert.deepEqual(keyed(`SELECT agent FROM read_markers`), ['lair']);
    assert.equal((await t.op('DELETE', '/api/v1/agents/lair')).status, 200);
  });

  it("a live-renamed agent's harness, still calling itself by the old name, reaches the renamed agent until relaunched", async () => {
    await spawn('scout', 'sleeper');
    assert.equal((await t.op('POST', '/api/v1/agents/scout/rename', { name: 'ranger' })).status, 200);
    const agentPost = (as: string, text: string) =>
      request(t.tcp, 'POST', `/api/agent/${as}/chat/post`, { token: t.daemon.agentToken, body: { text } });
    // What the running harness has: LEO_AGENT=scout, and scout in its MCP URL.
    const posted = await agentPost('scout', 'posted under my old name');
    assert.equal(posted.status, 200, posted.text);
    const texts = async (agent: string) =>
      (await t.get(`/api/v1/chat/${agent}/messages`, MessagePage)).messages.map((m) => m.text);
    assert.ok((await texts('ranger')).includes('posted under my old name'));
    // Its hooks too: a SessionStart under the old name records the renamed agent's session.
    const hooked = await request(t.socket, 'POST', '/hooks/session-start', {
      body: { agent: 'scout', payload: { session_id: 'sess-after-rename' } },
    });
    assert.equal(hooked.status, 200, hooked.text);
    const record = () => t.daemon.db.prepare('SELECT session_id FROM agents WHERE name = ?').pluck().get('ranger');
    assert.equal(record(), 'sess-after-rename');
    // Relaunched, the harness has its own name: the old one is nobody's.
    assert.equal((await t.op('POST', '/api/v1/agents/ranger/restart')).status, 200);
    assert.equal((await agentPost('scout', 'after the restart')).status, 404);
    // And a new agent that takes the old name gets its calls.
    await spawn('scout', 'sleeper');
    assert.equal((await agentPost('scout', 'the new scout')).status, 200);
    assert.ok((await texts('scout')).includes('the new scout'));
    assert.ok(!(await texts('ranger')).includes('the new scout'));
    for (const name of ['scout', 'ranger']) assert.equal((await t.op('DELETE', `/api/v1/agents/${name}`)).status, 200);
  });
});
