import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, it } from 'node:test';
import type { AgentRecord } from '../../src/agents/agent-record.js';
import { AgentStore } from '../../src/agents/agent-store.js';
import type { AgentLauncher } from '../../src/agents/launcher.js';
import { MAX_CONSECUTIVE_CRASHES } from '../../src/agents/crash-backoff.js';
import type { SessionControl } from '../../src/agents/lifecycle/fleet-state.js';
import { Supervisor } from '../../src/agents/lifecycle/supervisor.js';
import { Worktrees } from '../../src/agents/worktrees/worktrees.js';
import { parseConfig } from '../../src/config/load.js';
import { ManualClock } from '../../src/core/clock.js';
import { realExec } from '../../src/core/exec.js';
import { resolvePaths } from '../../src/core/home.js';
import { createLogger } from '../../src/core/logger.js';
import { rfc3339 } from '../../src/core/time.js';
import { EventBus } from '../../src/events/bus.js';
import { ActivityTracker } from '../../src/observe/activity-tracker.js';
import type { BusEvent } from '../../src/events/event.js';
import { openDatabase, type Database } from '../../src/store/database.js';
import type { SessionInfo } from '../../src/tmux/list-format.js';

/** tmux as a map of sessions: enough to drive the supervisor's decisions without a server. */
class FakeTmux implements SessionControl {
  sessions = new Map<string, SessionInfo>();
  async hasSession(name: string) {
    return this.sessions.has(name);
  }
  async killSession(name: string) {
    return this.sessions.delete(name);
  }
  async renameSession(from: string, to: string) {
    if (this.sessions.has(to)) throw new Error(`duplicate session: ${to}`);
    const s = this.sessions.get(from)!;
    this.sessions.delete(from);
    this.sessions.set(to, { ...s, name: to });
  }
  /** Holds list-sessions until released: a tmux slow to answer at boot. */
  listGate: Promise<void> | null = null;
  async listSessions() {
    await this.listGate;
    return [...this.sessions.values()];
  }
  /** What each session's pane shows; an exited one says why. */
  panes = new Map<string, string>();
  async capturePane(name: string) {
    return this.panes.get(name) ?? '';
  }
  add(name: string) {
    this.sessions.set(name, {
      name,
      activity: 0,
      attached: 0,
      panePid: 1,
      paneDead: false,
      deadStatus: null,
      deadSignal: null,
      created: null,
    });
  }
}

/** Launches by adding a session; `gate` holds launches until released, `fail` makes them throw. */
class FakeLauncher implements AgentLauncher {
  launches: { name: string; resume: boolean }[] = [];
  gate: Promise<void> | null = null;
  fail = new Set<string>();
  constructor(private readonly tmux: FakeTmux) {}
  check() {}
  async prepareWorkspace() {}
  async launch(record: AgentRecord, opts: { resume: boolean }) {
    await this.gate;
    if (this.fail.has(record.name)) throw new Error('boom');
    this.launches.push({ name: record.name, resume: opts.resume });
    this.tmux.add(`leo-${record.name}`);
  }
}

const yaml = `
environments:
  base: { A: "1" }
  work: { B: "2" }
templates:
  t: { harness: shell, command: "sleep 100" }
  u: { harness: shell, command: "sleep 200" }
`;

describe('Supervisor (fake tmux and launcher, real store and bus)', () => {
  let dir: string;
  let db: Database;
  let clock: ManualClock;
  let tmux: FakeTmux;
  let launcher: FakeLauncher;
  let bus: EventBus;
  let events: BusEvent[];
  let gone: string[];
  let notes: { agent: string; text: string }[];
  let sup: Supervisor;
  let configText: string;

  const build = () => {
    const s = new Supervisor({
      store: new AgentStore(db),
      tmux,
      launcher,
      worktrees: new Worktrees(realExec, path.join(dir, 'worktrees')),
      bus,
      clock,
      logger: createLogger('silent'),
      paths: resolvePaths({ LEO_HOME: dir }),
      config: () => {
        const r = parseConfig(configText, { file: 'leo.yaml', home: dir });
        assert.ok(r.ok);
        return r.config;
      },
      activity: new ActivityTracker(),
      note: (agent, text) => notes.push({ agent, text }),
      held: () => false,
    });
    s.onGone((a) => gone.push(a));
    return s;
  };
  const types = () =>
    events.map(
      (e) =>
        `${e.type}:${String(e.data.agent && typeof e.data.agent === 'object' ? (e.data.agent as { name: string }).name : e.data.agent)}`,
    );

  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'leo-sup-'));
    db = openDatabase(path.join(dir, 'chat.db'));
    clock = new ManualClock(Date.UTC(2026, 0, 1));
    tmux = new FakeTmux();
    launcher = new FakeLauncher(tmux);
    bus = new EventBus(clock);
    events = [];
    gone = [];
    notes = [];
    bus.subscribe({ deliver: (e) => events.push(e) });
    configText = yaml;
    sup = build();
  });
  afterEach(() => {
    db.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('spawn persists, launches and announces agent_spawned with the full Agent', async () => {
    const a = await sup.spawn({ name: 'den', template: 't' });
    assert.equal(a.status, 'running');
    assert.deepEqual(types(), ['agent_spawned:den']);
    const spawned = events[0]!.data.agent as Record<string, unknown>;
    assert.equal(spawned.template, 't');
    assert.equal(spawned.harness, 'shell');
    assert.equal(spawned.wake_on_message, false);
    await assert.rejects(sup.spawn({ name: 'den', template: 't' }), /already exists/);
    await assert.rejects(sup.spawn({ name: 'x', template: 'nope' }), /template "nope"/);
    await assert.rejects(sup.spawn({ name: 'x', template: 't', environments: ['ghost'] }), /ghost/);
  });

  it('a crashed session restarts with backoff, counting restarts and folding to starting meanwhile', async () => {
    await sup.spawn({ name: 'den', template: 't' });
    events.length = 0;
    tmux.sessions.get('leo-den')!.paneDead = true;
    sup.onSweep(await tmux.listSessions(), ['den']);
    await new Promise((r) => setImmediate(r));
    assert.equal(sup.get('den').status, 'starting');
    assert.equal(sup.get('den').restarts, 1);
    assert.equal(tmux.sessions.has('leo-den'), false, 'the dead pane is cleared');
    clock.advance(999);
    await new Promise((r) => setImmediate(r));
    assert.equal(sup.get('den').status, 'starting', 'not before the 1 s backoff');
    clock.advance(1);
    await new Promise((r) => setTimeout(r, 10));
    assert.equal(sup.get('den').status, 'running');
    assert.deepEqual(launcher.launches.at(-1), { name: 'den', resume: true });
    // Each change carries what it moved: the crash the restart count, the relaunch the start time.
    assert.deepEqual(
      events.map((e) => [e.type, e.data.status, e.data.started_at, e.data.restarts, e.data.stop_reason]),
      [
        ['agent_state_changed', 'starting', rfc3339(clock.now() - 1000), 1, null],
        ['agent_state_changed', 'running', rfc3339(clock.now()), 1, null],
      ],
    );
    // A second crash right away waits twice as long.
    tmux.sessions.delete('leo-den');
    sup.onSweep([], ['den']);
    await new Promise((r) => setImmediate(r));
    clock.advance(1999);
    await new Promise((r) => setImmediate(r));
    assert.equal(sup.get('den').status, 'starting');
    clock.advance(1);
    await new Promise((r) => setTimeout(r, 10));
    assert.equal(sup.get('den').restarts, 2);
    assert.equal(sup.get('den').status, 'running');
  });

  it(`a harness that exits at every start is stopped after ${MAX_CONSECUTIVE_CRASHES} tries, saying why everywhere`, async () => {
    await sup.spawn({ name: 'den', template: 't' });
    const dies = async () => {
      tmux.sessions.get('leo-den')!.paneDead = true;
      tmux.panes.set(
        'leo-den',
        'No conversation found to continue\n\nPane is dead (status 1, Tue Dec  1 09:30:21 2026)\n',
      );
      sup.onSweep(await tmux.listSessions(), ['den']);
      await new Promise((r) => setTimeout(r, 10));
    };
    for (let i = 1; i < MAX_CONSECUTIVE_CRASHES; i++) {
      await dies();
      assert.equal(sup.get('den').status, 'starting');
      clock.advance(60_000);
      await new Promise((r) => setTimeout(r, 10));
      assert.equal(sup.get('den').status, 'running', `relaunched after crash ${i}`);
    }
    events.length = 0;
    await dies();
    const a = sup.get('den');
    assert.equal(a.status, 'stopped');
    assert.equal(a.wake_on_message, false);
    assert.match(
      a.stop_reason ?? '',
      /exited 5 times in a row soon after starting \(exit 1: No conversation found to continue\)/,
    );
    assert.deepEqual(
      events.map((e) => [e.type, e.data.status, e.data.restarts, e.data.stop_reason]),
      [['agent_state_changed', 'stopped', MAX_CONSECUTIVE_CRASHES - 1, a.stop_reason]],
    );
    assert.equal(notes.length, 1);
    assert.match(notes[0]!.text, /den was stopped: it exited 5 times.*leo agent start den/);
    clock.advance(600_000);
    await new Promise((r) => setTimeout(r, 10));
    assert.equal(sup.get('den').status, 'stopped', 'no more restarts');
    assert.equal(launcher.launches.length, MAX_CONSECUTIVE_CRASHES, 'spawn plus four relaunches');
    // The reason survives a daemon restart (it is on the record), and a start clears it.
    sup = build();
    await sup.restore();
    assert.match(sup.get('den').stop_reason ?? '', /exited 5 times/);
    clock.advance(5000);
    events.length = 0;
    await sup.start('den');
    assert.equal(sup.get('den').stop_reason, null);
    assert.equal(sup.get('den').status, 'running');
    // The start says it cleared the reason and when the agent started.
    assert.deepEqual(
      events.map((e) => [e.type, e.data.status, e.data.started_at, e.data.stop_reason]),
      [['agent_state_changed', 'running', rfc3339(clock.now()), null]],
    );
  });

  it('restore: restoring from the first answer while tmux is slow to list, then the adoption and starts announced', async () => {
    await sup.spawn({ name: 'live', template: 't' });
    await sup.spawn({ name: 'gone', template: 't' });
    await sup.spawn({ name: 'broken', template: 't' });
    await sup.spawn({ name: 'off', template: 't' });
    await sup.stop('off');
    tmux.sessions.delete('leo-gone');
    tmux.sessions.delete('leo-broken');
    const liveSince = Date.UTC(2025, 11, 31, 23);
    tmux.sessions.get('leo-live')!.created = liveSince / 1000;
    launcher.launches = [];
    events.length = 0;

    sup = build();
    const statuses = () => sup.list().map((a) => [a.name, a.status, a.wake_on_message]);
    const restoringAll = [
      ['broken', 'restoring', false],
      ['gone', 'restoring', false],
      ['live', 'restoring', false],
      ['off', 'stopped', false],
    ];
    assert.deepEqual(statuses(), restoringAll, 'before the restore has begun');
    let listed!: () => void;
    tmux.listGate = new Promise((r) => (listed = r));
    let release!: () => void;
    launcher.gate = new Promise((r) => (release = r));
    launcher.fail.add('broken');
    const restoring = sup.restore();
    await new Promise((r) => setTimeout(r, 20));
    assert.deepEqual(statuses(), restoringAll, 'while tmux has not answered');
    assert.deepEqual(
      events.map((e) => [e.type, e.data.agent, e.data.status, e.data.wake_on_message]),
      [
        ['agent_state_changed', 'broken', 'restoring', false],
        ['agent_state_changed', 'gone', 'restoring', false],
        ['agent_state_changed', 'live', 'restoring', false],
      ],
      'entering restoring is published before tmux is listed',
    );
    events.length = 0;
    listed();
    await new Promise((r) => setImmediate(r));
    assert.equal(sup.get('live').status, 'running');
    assert.equal(sup.get('gone').status, 'restoring');
    // The adoption is announced with the start the agent had under the last daemon.
    assert.deepEqual(
      events.map((e) => [e.data.agent, e.data.status, e.data.started_at, e.data.restarts]),
      [['live', 'running', rfc3339(liveSince), 0]],
    );
    release();
    await restoring;
    assert.deepEqual(launcher.launches, [{ name: 'gone', resume: true }]);
    assert.equal(sup.get('gone').status, 'running');
    assert.equal(sup.get('broken').status, 'stopped');
    assert.equal(sup.get('broken').wake_on_message, false, 'a failed restore is a deliberate stop');
    assert.deepEqual(
      events
        .slice(1)
        .map((e) => [e.data.agent, e.data.status, e.data.started_at, e.data.stop_reason])
        .sort(),
      [
        ['broken', 'stopped', null, 'it could not be restarted when the daemon started: boom'],
        ['gone', 'running', rfc3339(clock.now()), null],
      ],
    );
  });

  it('stop, park, wake, start and remove: the events and flags of the spec', async () => {
    await sup.spawn({ name: 'den', template: 't' });
    events.length = 0;
    await sup.park('den');
    assert.deepEqual([sup.get('den').status, sup.get('den').wake_on_message], ['stopped', true]);
    assert.equal(await sup.wake('den'), true);
    assert.equal(await sup.wake('den'), false, 'a running agent is left alone');
    await sup.stop('den');
    assert.deepEqual([sup.get('den').status, sup.get('den').wake_on_message], ['stopped', false]);
    await sup.start('den');
    await sup.remove('den');
    assert.deepEqual(
      events.map((e) => [e.type, e.data.wake_on_message ?? null, e.data.status ?? null]),
      [
        ['agent_stopped', true, null],
        ['agent_state_changed', false, 'running'],
        ['agent_stopped', false, null],
        ['agent_state_changed', false, 'running'],
        ['agent_stopped', false, null],
      ],
    );
    assert.deepEqual(gone, ['den', 'den'], 'stop and remove close open asks; parking does not');
    assert.throws(() => sup.get('den'), /no agent named "den"/);
  });

  it('a moved agent leaves a dormant record: stopped, marked, announced whole, and never started here again', async () => {
    await sup.spawn({ name: 'den', template: 't' });
    events.length = 0;
    const at = rfc3339(clock.now());
    const agent = await sup.markMoved('den', { to: 'cloud', as: 'den2', at });
    assert.deepEqual(
      [agent.status, agent.wake_on_message, agent.moved_to, agent.moved_at, agent.moved_as],
      ['stopped', false, 'cloud', at, 'den2'],
    );
    assert.equal(tmux.sessions.size, 0, 'its session is gone');
    assert.deepEqual(gone, ['den'], 'its open asks close');
    assert.deepEqual(
      events.map((e) => [e.type, e.data.agent, e.data.status, e.data.moved_to, e.data.moved_at, e.data.moved_as]),
      [['agent_state_changed', 'den', 'stopped', 'cloud', at, 'den2']],
    );
    assert.deepEqual(
      sup.list().map((a) => [a.name, a.moved_to]),
      [['den', 'cloud']],
      'it stays listed',
    );
    const moved = (e: { code?: string; details?: Record<string, unknown> }) =>
      e.code === 'agent_moved' && e.details?.address === 'den2@cloud';
    await assert.rejects(sup.start('den'), moved);
    await assert.rejects(sup.wake('den'), moved);
    await assert.rejects(sup.restart('den'), moved);
    await assert.rejects(sup.reset('den'), moved);
    await assert.rejects(sup.setTemplate('den', 'u'), moved);
    assert.equal(sup.movedError('den')?.statusCode, 409);
    assert.equal(launcher.launches.length, 1, 'only the spawn launched it');
    events.length = 0;
    await sup.markMoved('den', { to: 'gpu', as: null, at });
    assert.equal(sup.get('den').moved_to, 'cloud', 'marking again changes nothing');
    assert.deepEqual(events, []);
    // Restored after a daemon restart: a dormant record is not started.
    sup = build();
    await sup.restore();
    assert.equal(sup.get('den').status, 'stopped');
    assert.equal(launcher.launches.length, 1);
  });

  it('rename live: stopped old, degraded spawned new, then appearance; stopped: full fields from the record', async () => {
    await sup.spawn({ name: 'den', template: 't' });
    events.length = 0;
    await sup.rename('den', 'lair');
    assert.deepEqual(types(), ['agent_stopped:den', 'agent_spawned:lair', 'agent_appearance_changed:lair']);
    const live = events[1]!.data.agent as Record<string, unknown>;
    for (const f of ['template', 'repo', 'branch', 'model', 'workspace', 'harness']) assert.equal(live[f], '', f);
    assert.equal('appearance' in live, false);
    assert.equal(tmux.sessions.has('leo-lair'), true, 'the live session is renamed, not restarted');
    assert.equal(sup.get('lair').template, 't');

    await sup.stop('lair');
    events.length = 0;
    await sup.rename('lair', 'den');
    assert.deepEqual(types(), ['agent_stopped:lair', 'agent_spawned:den']);
    const stopped = events[1]!.data.agent as Record<string, unknown>;
    assert.equal(stopped.template, 't');
    assert.equal(stopped.harness, 'shell');
    assert.equal(stopped.status, 'stopped');
  });

  it('a rename tmux refuses publishes nothing and leaves the agent as it was', async () => {
    await sup.spawn({ name: 'den', template: 't' });
    tmux.add('leo-lair'); // a session Leo does not know, of the new name
    events.length = 0;
    await assert.rejects(sup.rename('den', 'lair'), /duplicate session/);
    assert.deepEqual(types(), []);
    assert.equal(sup.get('den').status, 'running');
    assert.equal(sup.has('lair'), false);
  });

  it('a rename during crash back-off relaunches under the new name', async () => {
    await sup.spawn({ name: 'den', template: 't' });
    tmux.sessions.get('leo-den')!.paneDead = true;
    sup.onSweep(await tmux.listSessions(), ['den']);
    await new Promise((r) => setImmediate(r));
    assert.equal(sup.get('den').status, 'starting');
    events.length = 0;
    await sup.rename('den', 'lair');
    assert.deepEqual(types(), ['agent_stopped:den', 'agent_spawned:lair']);
    assert.equal((events[1]!.data.agent as { status: string }).status, 'starting');
    clock.advance(60_000);
    await new Promise((r) => setTimeout(r, 10));
    assert.equal(sup.get('lair').status, 'running', 'not stranded in starting');
    assert.deepEqual(launcher.launches.at(-1), { name: 'lair', resume: true });
    assert.equal(sup.get('lair').restarts, 1);
  });

  it('restart, reset and set-template stop then spawn; set-environment carries the environment fields', async () => {
    await sup.spawn({ name: 'den', template: 't' });
    events.length = 0;
    await sup.restart('den');
    await sup.reset('den');
    await sup.setTemplate('den', 'u');
    assert.deepEqual(types(), [
      'agent_stopped:den',
      'agent_spawned:den',
      'agent_stopped:den',
      'agent_spawned:den',
      'agent_stopped:den',
      'agent_spawned:den',
      'agent_appearance_changed:den',
    ]);
    assert.deepEqual(
      events.filter((e) => e.type === 'agent_stopped').map((e) => e.data.wake_on_message),
      [false, false, false],
    );
    assert.equal(sup.get('den').template, 'u');
    events.length = 0;
    await sup.setEnvironments('den', ['work', 'base']);
    assert.deepEqual(types(), ['agent_state_changed:den', 'agent_appearance_changed:den']);
    assert.deepEqual(events[0]!.data.environments, ['work', 'base']);
    assert.equal(events[0]!.data.environments_source, 'override');
    assert.equal(events[0]!.data.environment_error, null);
    await sup.setEnvironments('den', []);
    assert.equal(events.at(-2)!.data.environments_source, 'default');
    await assert.rejects(sup.setEnvironments('den', ['ghost']), /ghost/);
  });

  it('an environment removed from config shows as environment_error', async () => {
    await sup.spawn({ name: 'den', template: 't', environments: ['work'] });
    configText = yaml.replace('  work: { B: "2" }\n', '');
    assert.match(sup.get('den').environment_error ?? '', /"work"/);
  });
});
