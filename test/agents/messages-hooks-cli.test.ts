import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ManualClock } from '../../src/core/clock.js';
import { runLeoAsync } from '../helpers/cli.js';
import { paneText, startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { request } from '../helpers/http.js';
import { SseClient } from '../helpers/sse-client.js';
import { StateSnapshot } from '../../src/wire/fleet.js';

const CONFIG = `
templates:
  cat:
    harness: shell
    command: "exec cat"
  napper:
    harness: shell
    command: "exec cat"
    idle_suspend_after: 20s
`;

describe('agent messages, idle parking, hooks and the agent CLI', () => {
  let t: TestDaemon;
  let sse: SseClient;
  const pane = (agent: string) => paneText(t.home, agent);
  const waitPane = async (agent: string, re: RegExp) => {
    for (let i = 0; i < 50 && !re.test(pane(agent)); i++) await sleep(100);
    assert.match(pane(agent), re);
  };

  before(async () => {
    t = await startTestDaemon({ config: CONFIG });
    sse = await SseClient.open(t.tcp, '/api/v1/events', t.daemon.operatorToken);
    await sse.waitFor(1);
    for (const name of ['alpha', 'beta'])
      assert.equal((await t.op('POST', '/api/v1/agents/spawn', { template: 'cat', name })).status, 201);
  });
  after(async () => {
    sse.close();
    await t.stop();
  });

  it('an agent messages another: delivered into its pane; the bus and /state carry only who and when', async () => {
    const mark = sse.events.length;
    const r = await request(t.tcp, 'POST', '/api/agent/alpha/message', {
      token: t.daemon.agentToken,
      body: { to: 'beta', text: 'secret plan: ship it' },
    });
    assert.equal(r.status, 200, r.text);
    await waitPane('beta', /Message from agent alpha:[\s\S]*secret plan: ship it/);
    await sse.waitUntil(() => sse.events.slice(mark).some((e) => e.event === 'agent_message'));
    const ev = sse.events.slice(mark).find((e) => e.event === 'agent_message')!;
    assert.deepEqual(Object.keys(ev.data).sort(), ['at', 'from', 'seq', 'to']);
    assert.deepEqual([ev.data.from, ev.data.to], ['alpha', 'beta']);
    const state = await t.get('/api/v1/state', StateSnapshot);
    assert.deepEqual(
      state.recent_messages.map((m: { from?: string; to: string }) => [m.from, m.to]),
      [['alpha', 'beta']],
    );
    assert.equal(JSON.stringify(state).includes('secret plan'), false);

    const human = await t.op('POST', '/api/v1/agents/alpha/message', { text: 'from the web UI' });
    assert.equal(human.status, 200);
    await waitPane('alpha', /from the web UI/);
    const last = (await t.get('/api/v1/state', StateSnapshot)).recent_messages.at(-1)!;
    assert.equal('from' in last, false, 'a human has no agent identity');

    assert.equal(
      (
        await request(t.tcp, 'POST', '/api/agent/alpha/message', {
          token: t.daemon.operatorToken,
          body: { to: 'beta', text: 'x' },
        })
      ).status,
      403,
    );
    assert.equal(
      (
        await request(t.tcp, 'POST', '/api/agent/alpha/message', {
          token: t.daemon.agentToken,
          body: { to: 'ghost', text: 'x' },
        })
      ).status,
      404,
    );
  });

  it('an agent stopped on purpose stays down: a message to it is a 409 naming `leo agent start`', async () => {
    assert.equal((await t.op('POST', '/api/v1/agents/spawn', { template: 'cat', name: 'held' })).status, 201);
    assert.equal((await t.op('POST', '/api/v1/agents/held/stop')).status, 200);
    const mark = sse.events.length;
    for (const r of [
      await request(t.tcp, 'POST', '/api/agent/alpha/message', {
        token: t.daemon.agentToken,
        body: { to: 'held', text: 'wake up, held' },
      }),
      await t.op('POST', '/api/v1/agents/held/message', { text: 'wake up, held' }),
    ]) {
      assert.equal(r.status, 409, r.text);
      assert.match(r.json.error, /held is stopped and stays down until started \(`leo agent start held`\)/);
    }
    const a = (await t.op('GET', '/api/v1/agents/held')).json.data;
    assert.deepEqual([a.status, a.wake_on_message], ['stopped', false]);
    await sleep(300);
    assert.deepEqual(
      sse.events.slice(mark).filter((e) => ['agent_message', 'agent_state_changed', 'agent_spawned'].includes(e.event)),
      [],
      'not started, and no message announced',
    );
    assert.equal((await t.op('DELETE', '/api/v1/agents/held')).status, 200);
  });

  it('an idle agent is parked after idle_suspend_after and an inbound message wakes it', async () => {
    assert.equal((await t.op('POST', '/api/v1/agents/spawn', { template: 'napper', name: 'nap' })).status, 201);
    const mark = sse.events.length;
    for (let i = 0; i < 30 && !sse.events.slice(mark).some((e) => e.event === 'agent_stopped'); i++) {
      (t.clock as ManualClock).advance(2000);
      await sleep(100);
    }
    const parked = sse.events.slice(mark).find((e) => e.event === 'agent_stopped');
    assert.ok(parked, 'parked by the idle sweep');
    assert.deepEqual([parked.data.agent, parked.data.wake_on_message], ['nap', true]);
    const a = (await t.op('GET', '/api/v1/agents/nap')).json.data;
    assert.deepEqual([a.status, a.wake_on_message], ['stopped', true]);

    const woke = await t.op('POST', '/api/v1/agents/nap/message', { text: 'wake up' });
    assert.equal(woke.status, 200);
    await waitPane('nap', /wake up/);
    const b = (await t.op('GET', '/api/v1/agents/nap')).json.data;
    assert.deepEqual([b.status, b.wake_on_message], ['running', false]);
  });

  it('leo hook hands SessionStart to the daemon, which resumes that conversation on restart; it never fails', async () => {
    const env = { ...process.env, LEO_AGENT: 'alpha', LEO_SOCKET: t.daemon.paths.socketFile };
    const r = await runLeoAsync(
      ['hook', 'session-start'],
      env,
      JSON.stringify({ session_id: 'sess-123', hook_event_name: 'SessionStart' }),
    );
    assert.equal(r.status, 0);
    assert.equal(r.stdout, '', 'SessionStart output would reach Claude: none');
    assert.equal(t.daemon.db.prepare("SELECT session_id FROM agents WHERE name = 'alpha'").pluck().get(), 'sess-123');
    const broken = await runLeoAsync(['hook', 'stop'], { ...env, LEO_SOCKET: '/nonexistent.sock' }, 'not json');
    assert.deepEqual([broken.status, broken.stdout], [0, '']);
  });

  it('leo agent … drives the daemon over its socket', async () => {
    const env = { ...process.env, LEO_HOME: t.home, LEO_USER_HOME: t.home };
    const list = await runLeoAsync(['agent', 'list', '--json'], env);
    assert.equal(list.status, 0, list.stderr);
    assert.deepEqual(
      (JSON.parse(list.stdout) as { name: string }[]).map((a) => a.name),
      ['alpha', 'beta', 'nap'],
    );
    assert.match((await runLeoAsync(['agent', 'stop', 'beta'], env)).stdout, /beta: stopped/);
    assert.match((await runLeoAsync(['agent', 'start', 'beta'], env)).stdout, /beta: running/);
    const missing = await runLeoAsync(['agent', 'stop', 'ghost'], env);
    assert.equal(missing.status, 1);
    assert.match(missing.stderr, /no agent named "ghost"/);
    const down = await runLeoAsync(['agent', 'list'], { ...env, LEO_HOME: `${t.home}/nowhere` });
    assert.equal(down.status, 1);
    assert.match(down.stderr, /daemon is not running/);
  });
});
