import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createLogger } from '../../src/core/logger.js';
import { startDaemon } from '../../src/daemon/daemon.js';
import { killTmuxServer, startTestDaemon, type TestDaemon } from '../helpers/daemon.js';
import { SseClient, type SseMessage } from '../helpers/sse-client.js';
import { StateSnapshot } from '../../src/wire/fleet.js';
import type { ManualClock } from '../../src/core/clock.js';

const CONFIG = `
environments:
  base: { GREETING: hello-from-base }
  work: { GREETING: hello-from-work }
templates:
  printer:
    harness: shell
    command: "i=0; while [ $i -lt 6 ]; do i=$((i+1)); printf '\\\\033[1;32mstep %s\\\\033[0m\\\\t\\\\007done\\\\n' $i; sleep 0.5; done; exec sleep 600"
  sleeper:
    harness: shell
    command: "echo \\"env=$GREETING\\"; exec sleep 600"
`;

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Moves the daemon's clock in sweep-sized steps, giving each sweep real time to reach tmux and come back. */
async function tick(clock: ManualClock, ms: number, step = 2000): Promise<void> {
  for (let done = 0; done < ms; done += step) {
    clock.advance(step);
    await sleep(150);
  }
}

function tmuxOf(t: TestDaemon, ...args: string[]): string {
  return spawnSync('tmux', ['-S', path.join(t.home, 'state', 'tmux.sock'), ...args], { encoding: 'utf8' }).stdout;
}

describe('agents on a real private tmux server', () => {
  let t: TestDaemon;
  let sse: SseClient;
  let token: string;
  const since = (n: number): SseMessage[] => sse.events.slice(n);
  const agentIn = async (name: string) =>
    (await t.get('/api/v1/state', StateSnapshot)).agents.find((a) => a.name === name);

  before(async () => {
    t = await startTestDaemon({ config: CONFIG });
    token = t.daemon.operatorToken;
    sse = await SseClient.open(t.tcp, '/api/v1/events', token);
    await sse.waitFor(1);
    const hello = sse.events[0]!.data;
    for (const f of ['agent_environments', 'agent_appearance', 'agent_status_restoring'])
      assert.ok(hello.features.includes(f), f);
  });
  after(async () => {
    sse.close();
    await t.stop();
  });

  it('spawn → agent_spawned, then working while it prints (pane line sanitized), idle after 15 s', async () => {
    const mark = sse.events.length;
    const r = await t.op('POST', '/api/v1/agents/spawn', { template: 'printer', name: 'p1' });
    assert.equal(r.status, 201, r.text);
    assert.equal(r.json.data.status, 'running');
    await sse.waitFor(mark + 1);
    assert.equal(since(mark)[0]!.event, 'agent_spawned');
    assert.equal(since(mark)[0]!.data.agent.name, 'p1');

    let working: SseMessage | undefined;
    for (let i = 0; i < 30 && !working; i++) {
      await tick(t.clock as ManualClock, 2000);
      working = since(mark).find((e) => e.event === 'agent_activity' && e.data.activity === 'working');
    }
    assert.ok(working, 'agent_activity working');
    assert.equal(working.data.agent, 'p1');
    assert.equal(working.data.current_action.kind, 'pane');
    assert.match(working.data.current_action.detail, /^step \d +done$/, 'ANSI and control characters stripped');
    const live = await agentIn('p1');
    assert.equal(live!.activity, 'working');
    assert.ok(live!.last_activity_at);

    await sleep(3500); // the loop finishes printing
    await tick(t.clock as ManualClock, 20_000);
    const idle = since(mark).find((e) => e.event === 'agent_activity' && e.data.activity === 'idle');
    assert.ok(idle, 'agent_activity idle after the threshold');
    assert.equal(idle.data.current_action, null);
    assert.equal((await agentIn('p1'))!.activity, 'idle');
  });

  it('a killed process is restarted with backoff and restarts counted', async () => {
    const mark = sse.events.length;
    const pid = Number(tmuxOf(t, 'display-message', '-p', '-t', '=leo-p1:', '#{pane_pid}').trim());
    assert.ok(pid > 0);
    process.kill(pid, 'SIGKILL');
    for (let i = 0; i < 20 && !since(mark).some((e) => e.data.status === 'running'); i++)
      await tick(t.clock as ManualClock, 1000, 1000);
    assert.deepEqual(
      since(mark)
        .filter((e) => e.event === 'agent_state_changed')
        .map((e) => e.data.status),
      ['starting', 'running'],
    );
    const a = await agentIn('p1');
    assert.equal(a!.restarts, 1);
    assert.equal(a!.status, 'running');
    const newPid = Number(tmuxOf(t, 'display-message', '-p', '-t', '=leo-p1:', '#{pane_pid}').trim());
    assert.notEqual(newPid, pid);
  });

  it('rename, reset, set-template and set-environment publish the spec sequences; /state agrees', async () => {
    let mark = sse.events.length;
    assert.equal((await t.op('POST', '/api/v1/agents/p1/rename', { name: 'p2' })).status, 200);
    await sse.waitFor(mark + 3);
    assert.deepEqual(
      since(mark).map((e) => [e.event, typeof e.data.agent === 'string' ? e.data.agent : e.data.agent.name]),
      [
        ['agent_stopped', 'p1'],
        ['agent_spawned', 'p2'],
        ['agent_appearance_changed', 'p2'],
      ],
    );
    assert.equal(since(mark)[1]!.data.agent.template, '', 'a live rename degrades the payload');
    assert.equal(tmuxOf(t, 'has-session', '-t', '=leo-p2') !== null, true);
    assert.equal(await agentIn('p1'), undefined);
    assert.equal((await agentIn('p2'))!.template, 'printer');

    mark = sse.events.length;
    assert.equal((await t.op('POST', '/api/v1/agents/p2/reset')).status, 200);
    assert.equal((await t.op('POST', '/api/v1/agents/p2/template', { template: 'sleeper' })).status, 200);
    await sse.waitFor(mark + 5);
    assert.deepEqual(
      since(mark).map((e) => e.event),
      ['agent_stopped', 'agent_spawned', 'agent_stopped', 'agent_spawned', 'agent_appearance_changed'],
    );
    assert.equal((await agentIn('p2'))!.template, 'sleeper');
    assert.equal((await agentIn('p2'))!.restarts, 0, 'reset starts the count over');

    mark = sse.events.length;
    const env = await t.op('POST', '/api/v1/agents/p2/environments', { environments: ['work'] });
    assert.equal(env.status, 200, env.text);
    await sse.waitFor(mark + 2);
    const changed = since(mark)[0]!;
    assert.equal(changed.event, 'agent_state_changed');
    assert.deepEqual(changed.data.environments, ['work']);
    assert.equal(changed.data.environments_source, 'override');
    assert.equal(changed.data.environment_error, null);
    assert.equal(since(mark)[1]!.event, 'agent_appearance_changed');
    await sleep(300);
    assert.match(tmuxOf(t, 'capture-pane', '-p', '-t', '=leo-p2:'), /env=hello-from-work/);
    const text = JSON.stringify(sse.events) + JSON.stringify((await t.op('GET', '/api/v1/state')).json.data);
    assert.equal(text.includes('hello-from-work'), false, 'environment values never cross the API');
  });

  it('stop, start and remove behave as documented and /state agrees with the events', async () => {
    let mark = sse.events.length;
    assert.equal((await t.op('POST', '/api/v1/agents/p2/stop')).status, 200);
    await sse.waitFor(mark + 1);
    assert.deepEqual(
      since(mark).map((e) => [e.event, e.data.wake_on_message]),
      [['agent_stopped', false]],
    );
    let a = await agentIn('p2');
    assert.deepEqual([a!.status, a!.activity, a!.wake_on_message], ['stopped', 'unknown', false]);
    assert.equal(tmuxOf(t, 'list-sessions', '-F', '#{session_name}').includes('leo-p2'), false);

    mark = sse.events.length;
    assert.equal((await t.op('POST', '/api/v1/agents/p2/start')).status, 200);
    await sse.waitFor(mark + 1);
    assert.deepEqual(
      since(mark).map((e) => [e.event, e.data.status]),
      [['agent_state_changed', 'running']],
    );
    a = await agentIn('p2');
    assert.equal(a!.status, 'running');

    mark = sse.events.length;
    assert.equal((await t.op('DELETE', '/api/v1/agents/p2')).status, 200);
    await sse.waitFor(mark + 1);
    assert.deepEqual(
      since(mark).map((e) => e.event),
      ['agent_stopped'],
    );
    assert.equal(await agentIn('p2'), undefined, 'removed agents leave the snapshot');
  });

  it('bad input: 404 unknown agent, 400 naming the field, 409 taken name, refused kinds', async () => {
    assert.equal((await t.op('POST', '/api/v1/agents/ghost/stop')).status, 404);
    assert.equal((await t.op('POST', '/api/v1/agents/ghost/environments', { environments: [] })).status, 404);
    const bad = await t.op('POST', '/api/v1/agents/spawn', { template: 'printer', name: 'no spaces' });
    assert.equal(bad.status, 400);
    assert.match(bad.json.error, /^body\.name:/);
    assert.equal(bad.json.code, undefined, 'malformed bodies carry no code');
    const extra = await t.op('POST', '/api/v1/agents/spawn', { template: 'printer', colour: 'red' });
    assert.equal(extra.status, 400);
    const noTemplate = await t.op('POST', '/api/v1/agents/spawn', { template: 'nope', name: 'x1' });
    assert.equal(noTemplate.status, 400);
    assert.match(noTemplate.json.error, /template "nope"/);
    assert.equal((await t.op('POST', '/api/v1/agents/spawn', { template: 'sleeper', name: 'dup' })).status, 201);
    const dup = await t.op('POST', '/api/v1/agents/spawn', { template: 'sleeper', name: 'dup' });
    assert.equal(dup.status, 409);
    const envs = await t.op('POST', '/api/v1/agents/dup/environments', { environments: 'work' });
    assert.equal(envs.status, 400);
    assert.match(envs.json.error, /body\.environments/);
    const agentTok = await t.as(t.daemon.agentToken).op('POST', '/api/v1/agents/dup/environments', {
      environments: [],
    });
    assert.equal(agentTok.status, 403);
  });

  it('an environment that leaves the config shows in environment_error and start is refused', async () => {
    assert.equal((await t.op('POST', '/api/v1/agents/dup/environments', { environments: ['base'] })).status, 200);
    await t.op('POST', '/api/v1/agents/dup/stop');
    fs.writeFileSync(
      t.daemon.paths.configFile,
      fs.readFileSync(t.daemon.paths.configFile, 'utf8').replace(/  base: .*\n/, ''),
    );
    const reloaded = await t.daemon.reloadConfig('test');
    assert.equal(reloaded.ok, true);
    const a = await agentIn('dup');
    assert.match(a!.environment_error!, /"base"/);
    const start = await t.op('POST', '/api/v1/agents/dup/start');
    assert.equal(start.status, 400);
    assert.match(start.json.error, /"base"/);
    assert.equal((await agentIn('dup'))!.status, 'stopped');
  });

  it('environments, templates and appearance rules', async () => {
    assert.deepEqual((await t.op('GET', '/api/v1/environments')).json.data, [{ name: 'work' }]);
    // The spec's shapes exactly: a name per environment; per template its name, harness, model and own list, plus the
    // additive spawn_environments (what a spawn gets unless it names its own; docs/DECISIONS.md, issue 27) and worktree.
    assert.deepEqual((await t.op('GET', '/api/v1/templates')).json.data, [
      { name: 'printer', harness: 'shell', model: '', environments: [], spawn_environments: [], worktree: false },
      { name: 'sleeper', harness: 'shell', model: '', environments: [], spawn_environments: [], worktree: false },
    ]);
    const mark = sse.events.length;
    const put = await t.op('PUT', '/api/v1/appearance/rules', [{ match: { name: 'd*' }, emoji: '🐙' }]);
    assert.equal(put.status, 200, put.text);
    // Every agent's appearance is republished on each config reload (a late file-watch reload from the test before
    // can land after the mark, still without the rule): wait for dup's event that carries the rule.
    const dupChanged = (e: { event: string; data: { agent?: string; appearance?: { emoji?: string } | null } }) =>
      e.event === 'agent_appearance_changed' && e.data.agent === 'dup' && e.data.appearance?.emoji !== undefined;
    await sse.waitUntil(() => since(mark).some(dupChanged));
    const changed = since(mark).find(dupChanged)!;
    assert.deepEqual(changed.data.appearance, { emoji: '🐙', emoji_source: 'rule:0' });
    assert.match(fs.readFileSync(t.daemon.paths.configFile, 'utf8'), /templates:/, 'the rest of leo.yaml is kept');
    const badRule = await t.op('PUT', '/api/v1/appearance/rules', [{ match: {} }]);
    assert.equal(badRule.status, 400);
    const manual = await t.op('PUT', '/api/v1/agents/dup/appearance', { color: 'teal' });
    assert.deepEqual(manual.json.data.appearance, {
      emoji: '🐙',
      emoji_source: 'rule:0',
      color: 'teal',
      color_source: 'manual',
    });
    const cleared = await t.op('PUT', '/api/v1/agents/dup/appearance', { color: null });
    assert.deepEqual(cleared.json.data.appearance, { emoji: '🐙', emoji_source: 'rule:0' });
  });
});

describe('a daemon restart', () => {
  it('adopts live sessions and restores a stored agent whose session is gone', async () => {
    const t = await startTestDaemon({ config: CONFIG });
    try {
      for (const name of ['keep', 'lost'])
        assert.equal((await t.op('POST', '/api/v1/agents/spawn', { template: 'sleeper', name })).status, 201);
      const pid = () =>
        spawnSync(
          'tmux',
          ['-S', `${t.home}/state/tmux.sock`, 'display-message', '-p', '-t', '=leo-keep:', '#{pane_pid}'],
          {
            encoding: 'utf8',
          },
        ).stdout.trim();
      const before = pid();
      await t.daemon.close();
      spawnSync('tmux', ['-S', `${t.home}/state/tmux.sock`, 'kill-session', '-t', '=leo-lost']);

      const again = await startDaemon({
        env: { ...process.env, LEO_HOME: t.home, LEO_USER_HOME: t.home },
        logger: createLogger('silent'),
      });
      try {
        const agents = again.supervisor.list();
        assert.deepEqual(
          agents.map((a) => [a.name, a.status]),
          [
            ['keep', 'running'],
            ['lost', 'running'],
          ],
        );
        assert.equal(pid(), before, 'the live session was adopted, not restarted');
      } finally {
        await again.close();
      }
    } finally {
      killTmuxServer(t.home);
      fs.rmSync(t.home, { recursive: true, force: true });
    }
  });
});
