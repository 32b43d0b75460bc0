import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ManualClock } from '../../../src/core/clock.js';
import { createLogger } from '../../../src/core/logger.js';
import { startDaemon } from '../../../src/daemon/daemon.js';
import { caller, killTmuxServer, startTestDaemon, type TestDaemon } from '../../helpers/daemon.js';
import { MessagePage } from '../../../src/wire/message.js';
import { until } from '../../helpers/wait.js';

const CONFIG = `
templates:
  cat: { harness: shell, command: "exec cat" }
`;
const MIN = 60_000;

describe('ask lifecycle through MCP (clock seam)', () => {
  let t: TestDaemon;
  let clock: ManualClock;
  const clients: Client[] = [];
  const connect = async (agent = 'den') => {
    const c = new Client({ name: 'test', version: '1' });
    await c.connect(
      new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${t.daemon.port}/api/agent/${agent}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${t.daemon.agentToken}` } },
      }),
    );
    clients.push(c);
    return c;
  };
  const call = (c: Client, name: string, args: Record<string, unknown>) =>
    c
      .callTool({ name, arguments: args }, undefined, { timeout: 60_000 })
      .then((r) => r as { isError?: boolean; structuredContent?: any; content: any });
  /** The newest open ask in den's thread, once it exists. */
  const openAsk = async () => {
    for (let i = 0; i < 50; i++) {
      const page = (await t.op('GET', '/api/v1/chat/den/messages')).json.data;
      const m = [...page.messages]
        .reverse()
        .find((x: { kind: string; state: string }) => x.kind === 'ask' && x.state === 'open');
      if (m) return m;
      await sleep(40);
    }
    throw new Error('no open ask');
  };
  const pane = () =>
    spawnSync(
      'tmux',
      ['-S', path.join(t.home, 'state', 'tmux.sock'), 'capture-pane', '-p', '-J', '-S', '-500', '-t', '=leo-den:'],
      {
        encoding: 'utf8',
      },
    ).stdout;

  before(async () => {
    clock = new ManualClock(Date.now());
    t = await startTestDaemon({ config: CONFIG, clock });
    assert.equal((await t.op('POST', '/api/v1/agents/spawn', { template: 'cat', name: 'den' })).status, 201);
    assert.equal((await t.op('POST', '/api/v1/agents/spawn', { template: 'cat', name: 'other' })).status, 201);
  });
  after(async () => {
    for (const c of clients) await c.close();
    await t.stop();
  });

  it('an answer from chat returns values with labels to the blocked call; a settled ask is 409', async () => {
    const c = await connect();
    const pending = call(c, 'leo_chat_ask', { question: 'Ship it?', options: ['Yes', 'No'] });
    const ask = await openAsk();
    assert.deepEqual(ask.input, {
      type: 'buttons',
      options: [
        { value: 'Yes', label: 'Yes' },
        { value: 'No', label: 'No' },
      ],
    });
    assert.equal('deadline' in ask, false, 'an agent ask has no deadline by default');
    const bad = await t.op('POST', `/api/v1/chat/den/messages/${ask.id}/answer`, { values: ['Maybe'] });
    assert.equal(bad.status, 400);
    const answered = await t.op('POST', `/api/v1/chat/den/messages/${ask.id}/answer`, { values: ['Yes'], text: '' });
    assert.equal(answered.status, 200, answered.text);
    assert.equal(answered.json.data.state, 'answered');
    const r = await pending;
    assert.deepEqual(r.structuredContent, { message_id: ask.id, values: ['Yes'], labels: ['Yes'], text: '' });
    assert.equal((await t.op('POST', `/api/v1/chat/den/messages/${ask.id}/answer`, { values: ['No'] })).status, 409);
  });

  it('a timeout_s deadline expires the ask (closed_reason timeout) and the call returns timed_out', async () => {
    const c = await connect();
    const pending = call(c, 'leo_chat_ask', { question: 'Quick?', input: { type: 'text' }, timeout_s: 60 });
    const ask = await openAsk();
    assert.ok(ask.deadline);
    clock.advance(59_999);
    await sleep(30);
    assert.equal((await openAsk()).id, ask.id, 'still open a millisecond before');
    clock.advance(1);
    const r = await pending;
    assert.deepEqual(r.structuredContent, {
      message_id: ask.id,
      values: [],
      labels: [],
      text: '',
      timed_out: true,
      closed_reason: 'timeout',
    });
    const page = await t.get('/api/v1/chat/den/messages', MessagePage);
    const m = page.messages.find((x) => x.id === ask.id)!;
    assert.deepEqual([m.state, m.closed_reason], ['expired', 'timeout']);
  });

  it('the call window returns pending after 30 minutes; resuming waits on; a late answer is delivered as a reply', async () => {
    const c = await connect();
    const first = call(c, 'leo_chat_ask', {
      question: 'Which DB?',
      input: { type: 'radio', options: ['pg', 'sqlite'] },
    });
    const ask = await openAsk();
    clock.advance(30 * MIN);
    assert.deepEqual((await first).structuredContent, { message_id: ask.id, pending: true });
    const resumed = call(c, 'leo_chat_ask', { message_id: ask.id });
    await sleep(100);
    await t.op('POST', `/api/v1/chat/den/messages/${ask.id}/answer`, { values: ['sqlite'] });
    assert.deepEqual((await resumed).structuredContent, {
      message_id: ask.id,
      values: ['sqlite'],
      labels: ['sqlite'],
      text: '',
    });

    const late = call(c, 'leo_chat_ask', { question: 'Deploy now?', options: ['Yes', 'No'] });
    const ask2 = await openAsk();
    clock.advance(30 * MIN);
    await late;
    await t.op('POST', `/api/v1/chat/den/messages/${ask2.id}/answer`, { values: ['Yes'] });
    let text = '';
    for (let i = 0; i < 50 && !text.includes('Answer:'); i++) {
      await sleep(100);
      text = pane();
    }
    assert.match(text, /\[Leo Chat\] Yes/);
    assert.match(text, new RegExp(`In reply to your leo_chat_ask ${ask2.id} \\(.*\\): Deploy now\\?`));
    assert.match(
      text.replace(/\n/g, ''),
      new RegExp(`Answer: \\{"message_id":"${ask2.id}","values":\\["Yes"\\],"labels":\\["Yes"\\],"text":""\\}`),
    );
    const resumeAfter = await call(c, 'leo_chat_ask', { message_id: ask2.id });
    assert.deepEqual(resumeAfter.structuredContent.values, ['Yes'], 'a resume still returns the stored answer');
  });

  it('a call the harness abandons (MCP or JSON route) stops blocking at once: a later answer is a late-answer delivery', async () => {
    /** The late answer to `id`, typed into den's pane. */
    const delivered = async (id: string) => {
      let text = '';
      for (let i = 0; i < 50 && !text.includes(`"message_id":"${id}"`); i++) {
        await sleep(100);
        text = pane().replace(/\n/g, '');
      }
      return text;
    };

    // MCP: the harness drops the connection while the call blocks.
    const c = await connect();
    const dropped = call(c, 'leo_chat_ask', { question: 'Abandoned over MCP?', options: ['Yes', 'No'] }).catch(
      (err: Error) => err,
    );
    const viaMcp = await openAsk();
    await c.close();
    await dropped;
    await sleep(100);
    const a1 = await t.op('POST', `/api/v1/chat/den/messages/${viaMcp.id}/answer`, { values: ['No'] });
    assert.equal(a1.status, 200, a1.text);
    assert.match(
      await delivered(viaMcp.id),
      new RegExp(
        `In reply to your leo_chat_ask ${viaMcp.id} \\(.*\\): Abandoned over MCP\\?Answer: \\{"message_id":"${viaMcp.id}","values":\\["No"\\]`,
      ),
    );

    // MCP: an SDK client gives up on the call (its timeout, the user interrupting): it sends notifications/cancelled
    // on a request of its own and leaves the call's request open.
    const c2 = await connect();
    const giveUp = new AbortController();
    const cancelled = c2
      .callTool({ name: 'leo_chat_ask', arguments: { question: 'Cancelled over MCP?' } }, undefined, {
        signal: giveUp.signal,
        timeout: 60_000,
      })
      .catch((err: Error) => err);
    const viaCancel = await openAsk();
    giveUp.abort('interrupted');
    assert.ok((await cancelled) instanceof Error);
    await sleep(200);
    const a3 = await t.op('POST', `/api/v1/chat/den/messages/${viaCancel.id}/answer`, { text: 'after all' });
    assert.equal(a3.status, 200, a3.text);
    assert.match(await delivered(viaCancel.id), new RegExp(`In reply to your leo_chat_ask ${viaCancel.id}`));

    // The JSON route: the caller's request is cut while it blocks.
    const req = http.request({
      host: '127.0.0.1',
      port: t.daemon.port,
      method: 'POST',
      path: '/api/agent/den/chat/ask',
      headers: { authorization: `Bearer ${t.daemon.agentToken}`, 'content-type': 'application/json' },
    });
    req.on('error', () => {});
    req.end(JSON.stringify({ question: 'Abandoned over HTTP?', input: { type: 'text' } }));
    const viaApi = await openAsk();
    assert.equal(viaApi.text, 'Abandoned over HTTP?');
    req.destroy();
    await sleep(100);
    const a2 = await t.op('POST', `/api/v1/chat/den/messages/${viaApi.id}/answer`, { text: 'later' });
    assert.equal(a2.status, 200, a2.text);
    assert.match(
      await delivered(viaApi.id),
      new RegExp(`\\[Leo Chat\\] laterIn reply to your leo_chat_ask ${viaApi.id}`),
    );
    const ids = [viaMcp.id, viaCancel.id, viaApi.id];
    await until(
      'the three late answers delivered, once each',
      async () => {
        const replies = (await t.get('/api/v1/chat/den/messages?limit=200', MessagePage)).messages.filter((m) =>
          ids.includes(m.reply_to ?? ''),
        );
        return replies.length === 3 && replies.every((m) => m.direction === 'in' && m.state === 'delivered');
      },
      5000,
    );
  });

  it('withdraw closes your own ask at once; another agent or a settled ask is refused', async () => {
    const c = await connect();
    const blocked = call(c, 'leo_chat_ask', { question: 'Still needed?' });
    const ask = await openAsk();
    const stranger = await connect('other');
    const refused = await call(stranger, 'leo_chat_ask_withdraw', { message_id: ask.id });
    assert.equal(refused.isError, true);
    assert.match(JSON.stringify(refused.content), /another agent/);
    const w = await call(c, 'leo_chat_ask_withdraw', { message_id: ask.id });
    assert.deepEqual(w.structuredContent, { message_id: ask.id, withdrawn: true });
    assert.equal((await blocked).structuredContent.closed_reason, 'withdrawn');
    const again = await call(c, 'leo_chat_ask_withdraw', { message_id: ask.id });
    assert.equal(again.isError, true);
    assert.match(JSON.stringify(again.content), /already expired/);
  });

  it('stopping the agent closes its open asks as agent_gone; bad ask input is a tool error', async () => {
    const c = await connect();
    const bad = await call(c, 'leo_chat_ask', { question: 'x', input: { type: 'checkboxes', options: ['a'], max: 3 } });
    assert.equal(bad.isError, true);
    assert.match(JSON.stringify(bad.content), /max/);
    const blocked = call(c, 'leo_chat_ask', { question: 'Before you go?' });
    await openAsk();
    await t.op('POST', '/api/v1/agents/den/stop');
    assert.equal((await blocked).structuredContent.closed_reason, 'agent_gone');
  });
});

describe('open asks across a daemon restart', () => {
  it('a deadline is re-armed for the time left, or expires at once when it passed while down', async () => {
    const clock = new ManualClock(Date.now());
    const t = await startTestDaemon({ config: CONFIG, clock });
    const home = t.home;
    try {
      await t.op('POST', '/api/v1/agents/spawn', { template: 'cat', name: 'den' });
      const c = new Client({ name: 'test', version: '1' });
      await c.connect(
        new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${t.daemon.port}/api/agent/den/mcp`), {
          requestInit: { headers: { authorization: `Bearer ${t.daemon.agentToken}` } },
        }),
      );
      void c.callTool({ name: 'leo_chat_ask', arguments: { question: 'short', timeout_s: 60 } }).catch(() => {});
      void c.callTool({ name: 'leo_chat_ask', arguments: { question: 'long', timeout_s: 3600 } }).catch(() => {});
      await sleep(300);
      await c.close().catch(() => {});
      await t.daemon.close();

      const later = new ManualClock(clock.now() + 10 * MIN);
      const again = await startDaemon({
        env: { ...process.env, LEO_HOME: home, LEO_USER_HOME: home },
        clock: later,
        logger: createLogger('silent'),
      });
      try {
        const local = caller({ socketPath: again.paths.socketFile }, () => undefined);
        const asks = async () =>
          Object.fromEntries(
            (await local.get('/api/v1/chat/den/messages', MessagePage)).messages
              .filter((m) => m.kind === 'ask')
              .map((m) => [m.text, `${m.state}/${m.closed_reason ?? ''}`]),
          );
        await sleep(50);
        assert.deepEqual(await asks(), { short: 'expired/timeout', long: 'open/' });
        // The stored deadline is RFC 3339 to the second, so allow that much rounding.
        later.advance(50 * MIN - 1000);
        await sleep(20);
        assert.equal((await asks()).long, 'open/');
        later.advance(1000);
        await sleep(20);
        assert.equal((await asks()).long, 'expired/timeout');
      } finally {
        await again.close();
      }
    } finally {
      killTmuxServer(home);
      fs.rmSync(home, { recursive: true, force: true });
    }
  });
});
