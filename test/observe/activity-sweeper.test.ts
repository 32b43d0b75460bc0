import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { setImmediate as tick } from 'node:timers/promises';
import { ManualClock } from '../../src/core/clock.js';
import { claudeChrome } from '../../src/harnesses/claude/chrome.js';
import { ActivitySweeper, type SweepPool } from '../../src/observe/activity-sweeper.js';
import {
  ActivityTracker,
  type ActivityChange,
  type AgentSession,
  type SweepObservation,
} from '../../src/observe/activity-tracker.js';
import type { SessionInfo } from '../../src/tmux/list-format.js';

function sess(name: string, activity: number): SessionInfo {
  return { name, activity, attached: 0, panePid: 1, paneDead: false, deadStatus: null, deadSignal: null, created: 1 };
}

/** A pool whose sweep answers come from `answer`, optionally held until released. */
class FakePool implements SweepPool {
  calls: { task: string; input: unknown }[] = [];
  answer: (input: { previous: Record<string, number> }) => SweepObservation = () => ({ sessions: [], panes: {} });
  hold = false;
  private held: (() => void)[] = [];

  run<T>(task: string, input: unknown): Promise<T> {
    this.calls.push({ task, input });
    const result = () => this.answer(input as { previous: Record<string, number> }) as T;
    if (!this.hold) return Promise.resolve(result());
    return new Promise<T>((resolve) => this.held.push(() => resolve(result())));
  }

  release(): void {
    for (const r of this.held.splice(0)) r();
  }
}

function setup(opts: { running?: AgentSession[] } = {}) {
  const clock = new ManualClock(Date.UTC(2026, 6, 31, 22, 40, 0));
  const pool = new FakePool();
  const tracker = new ActivityTracker();
  const published: ActivityChange[] = [];
  const errors: unknown[] = [];
  let running = opts.running ?? [{ agent: 'den', session: 'leo-den', harness: 'claude' as const }];
  const sweeper = new ActivitySweeper({
    clock,
    pool,
    tracker,
    tmuxSocket: '/run/leo/tmux.sock',
    agentsRunning: () => running,
    publish: (c) => published.push(c),
    onError: (e) => errors.push(e),
  });
  const sec = () => Math.floor(clock.now() / 1000);
  return { clock, pool, tracker, published, errors, sweeper, sec, setRunning: (r: AgentSession[]) => (running = r) };
}

describe('ActivitySweeper', () => {
  it('asks the pool for a sweep with the socket, the tracker baselines and each session’s harness, and publishes what changed', async () => {
    const { clock, pool, published, sweeper, sec } = setup();
    const t0 = sec();
    pool.answer = () => ({ sessions: [sess('leo-den', t0)], panes: {} });
    await sweeper.sweepNow();
    assert.deepEqual(pool.calls, [
      {
        task: 'sweep',
        input: {
          socketPath: '/run/leo/tmux.sock',
          previous: {},
          harnesses: { 'leo-den': 'claude' },
          chrome: { claude: claudeChrome },
        },
      },
    ]);
    assert.deepEqual(published, []);

    clock.advance(2000);
    pool.answer = ({ previous }) => {
      assert.deepEqual(previous, { 'leo-den': t0 });
      return { sessions: [sess('leo-den', t0 + 2)], panes: { 'leo-den': 'Running tests' } };
    };
    await sweeper.sweepNow();
    assert.deepEqual(published, [
      {
        agent: 'den',
        activity: 'working',
        current_action: { kind: 'pane', detail: 'Running tests' },
        last_activity_at: (t0 + 2) * 1000,
      },
    ]);
  });

  it('sweeps on the clock interval and never overlaps: a tick during a sweep is skipped', async () => {
    const { clock, pool, sweeper } = setup();
    pool.hold = true;
    sweeper.start();
    clock.advance(1999);
    assert.equal(pool.calls.length, 0);
    clock.advance(1);
    assert.equal(pool.calls.length, 1);
    clock.advance(2000);
    clock.advance(2000);
    assert.equal(pool.calls.length, 1, 'still running: no second sweep');
    assert.equal(sweeper.stats().skipped, 2);
    const joined = sweeper.sweepNow();
    assert.equal(pool.calls.length, 1, 'sweepNow joins the running sweep');
    pool.release();
    await joined;
    clock.advance(2000);
    assert.equal(pool.calls.length, 2);
    pool.release();
    await sweeper.sweepNow();
    assert.equal(sweeper.stats().sweeps, 2);
    void sweeper.stop();
  });

  it('publishes a change the rate limit held back on a clock timer', async () => {
    const { clock, pool, published, sweeper, sec } = setup();
    const t0 = sec();
    pool.answer = () => ({ sessions: [sess('leo-den', t0)], panes: {} });
    await sweeper.sweepNow();
    clock.advance(2000);
    pool.answer = () => ({ sessions: [sess('leo-den', t0 + 2)], panes: { 'leo-den': 'one' } });
    await sweeper.sweepNow();
    clock.advance(300);
    pool.answer = () => ({ sessions: [sess('leo-den', t0 + 3)], panes: { 'leo-den': 'two' } });
    await sweeper.sweepNow();
    assert.deepEqual(
      published.map((c) => c.current_action?.detail),
      ['one'],
    );
    clock.advance(699);
    assert.equal(published.length, 1);
    clock.advance(1);
    assert.deepEqual(
      published.map((c) => c.current_action?.detail),
      ['one', 'two'],
    );
  });

  it('does not call the pool when no agent is running, yet turns a stopped agent unknown', async () => {
    const { clock, pool, published, sweeper, sec, setRunning } = setup();
    pool.answer = () => ({ sessions: [sess('leo-den', sec() - 100)], panes: {} });
    await sweeper.sweepNow();
    assert.equal(published.at(-1)?.activity, 'idle');
    setRunning([]);
    clock.advance(2000);
    await sweeper.sweepNow();
    assert.equal(pool.calls.length, 1);
    assert.equal(published.at(-1)?.activity, 'unknown');
  });

  it('an agent that stopped while the sweep ran is not reported from it', async () => {
    const { clock, pool, tracker, sweeper, sec, setRunning } = setup();
    const t0 = sec();
    pool.answer = () => ({ sessions: [sess('leo-den', t0)], panes: {} });
    await sweeper.sweepNow();
    clock.advance(2000);
    pool.hold = true;
    pool.answer = () => ({ sessions: [sess('leo-den', t0 + 2)], panes: { 'leo-den': 'x' } });
    const p = sweeper.sweepNow();
    setRunning([]);
    pool.release();
    await p;
    assert.equal(tracker.snapshot('den').activity, 'unknown');
  });

  it('a failed sweep is reported and the next one still runs; a throwing publish does not stop the others', async () => {
    const { clock, pool, errors, sweeper, sec } = setup({
      running: [
        { agent: 'a', session: 'sa' },
        { agent: 'b', session: 'sb' },
      ],
    });
    pool.answer = () => {
      throw new Error('tmux exploded');
    };
    await sweeper.sweepNow();
    assert.equal(sweeper.stats().failures, 1);
    assert.match(String(errors[0]), /tmux exploded/);

    const seen: string[] = [];
    const s2 = new ActivitySweeper({
      clock,
      pool,
      tracker: new ActivityTracker(),
      tmuxSocket: '/s',
      agentsRunning: () => [
        { agent: 'a', session: 'sa' },
        { agent: 'b', session: 'sb' },
      ],
      publish: (c) => {
        seen.push(c.agent);
        if (c.agent === 'a') throw new Error('subscriber broke');
      },
      onError: (e) => errors.push(e),
    });
    pool.answer = () => ({ sessions: [sess('sa', sec() - 100), sess('sb', sec() - 100)], panes: {} });
    await s2.sweepNow();
    assert.deepEqual(seen, ['a', 'b']);
    assert.match(String(errors[1]), /subscriber broke/);
  });

  it('hands each real observation, with the agents it covered, to onObservation', async () => {
    const clock = new ManualClock(Date.UTC(2026, 6, 31, 22, 40, 0));
    const pool = new FakePool();
    const seen: [string[], string[]][] = [];
    let running: AgentSession[] = [{ agent: 'den', session: 'leo-den' }];
    const sweeper = new ActivitySweeper({
      clock,
      pool,
      tracker: new ActivityTracker(),
      tmuxSocket: '/s',
      agentsRunning: () => running,
      publish: () => {},
      onObservation: (o, swept) => seen.push([o.sessions.map((s) => s.name), swept.map((a) => a.agent)]),
    });
    pool.answer = () => ({ sessions: [sess('leo-den', 1), sess('other', 1)], panes: {} });
    await sweeper.sweepNow();
    running = [];
    await sweeper.sweepNow();
    assert.deepEqual(seen, [[['leo-den', 'other'], ['den']]], 'no observation when tmux was not asked');
  });

  it('stop ends the ticks, the pending flush, and publishing from a sweep still running', async () => {
    const { clock, pool, published, sweeper, sec } = setup();
    const t0 = sec();
    pool.answer = () => ({ sessions: [sess('leo-den', t0)], panes: {} });
    sweeper.start();
    clock.advance(2000);
    await sweeper.sweepNow();
    pool.answer = () => ({ sessions: [sess('leo-den', t0 + 4)], panes: { 'leo-den': 'one' } });
    clock.advance(2000);
    await sweeper.sweepNow();
    pool.answer = () => ({ sessions: [sess('leo-den', t0 + 5)], panes: { 'leo-den': 'two' } });
    await sweeper.sweepNow();
    assert.equal(published.length, 1, 'two is held back');
    pool.hold = true;
    clock.advance(500);
    const p = sweeper.sweepNow();
    void sweeper.stop();
    pool.release();
    await p;
    const calls = pool.calls.length;
    clock.advance(10_000);
    await tick();
    assert.equal(pool.calls.length, calls);
    assert.equal(published.length, 1);
  });
});
