import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ManualClock } from '../../src/core/clock.js';
import {
  ActivityTracker,
  activityEvent,
  advanced,
  sessionsToCapture,
  type AgentSession,
  type SweepObservation,
} from '../../src/observe/activity-tracker.js';
import type { SessionInfo } from '../../src/tmux/list-format.js';

function sess(name: string, activity: number, more: Partial<SessionInfo> = {}): SessionInfo {
  return {
    name,
    activity,
    attached: 0,
    panePid: 100,
    paneDead: false,
    deadStatus: null,
    deadSignal: null,
    created: 1,
    ...more,
  };
}

function obs(sessions: SessionInfo[], panes: Record<string, string | null> = {}): SweepObservation {
  return { sessions, panes };
}

const DEN: AgentSession[] = [{ agent: 'den', session: 'leo-den' }];

/** A tracker and a clock whose "now" in epoch seconds is what tmux would report at the same moment. */
function setup() {
  const clock = new ManualClock(Date.UTC(2026, 6, 31, 22, 40, 0));
  const tracker = new ActivityTracker();
  const sec = () => Math.floor(clock.now() / 1000);
  return { clock, tracker, sec };
}

describe('ActivityTracker', () => {
  it('the first sweep that sees a session takes its baseline: unknown, nothing published, nothing captured', () => {
    const { clock, tracker, sec } = setup();
    assert.deepEqual(tracker.baselines(DEN), {});
    assert.deepEqual(tracker.observe(DEN, obs([sess('leo-den', sec())]), clock.now()), []);
    assert.deepEqual(tracker.snapshot('den'), {
      activity: 'unknown',
      current_action: null,
      last_activity_at: sec() * 1000,
    });
    assert.deepEqual(tracker.baselines(DEN), { 'leo-den': sec() });
  });

  it('an advance past the baseline is working, with the pane line as current action', () => {
    const { clock, tracker, sec } = setup();
    const t0 = sec();
    tracker.observe(DEN, obs([sess('leo-den', t0)]), clock.now());
    clock.advance(2000);
    const changes = tracker.observe(
      DEN,
      obs([sess('leo-den', t0 + 2)], { 'leo-den': 'Running go test ./...' }),
      clock.now(),
    );
    const expected = {
      activity: 'working',
      current_action: { kind: 'pane', detail: 'Running go test ./...' },
      last_activity_at: (t0 + 2) * 1000,
    } as const;
    assert.deepEqual(changes, [{ agent: 'den', ...expected }]);
    assert.deepEqual(tracker.snapshot('den'), expected);
    assert.deepEqual(tracker.baselines(DEN), { 'leo-den': t0 + 2 });
  });

  it('turns idle only after more than 15 s on the clock without an advance, dropping the action', () => {
    const { clock, tracker, sec } = setup();
    const t0 = sec();
    tracker.observe(DEN, obs([sess('leo-den', t0)]), clock.now());
    clock.advance(2000);
    tracker.observe(DEN, obs([sess('leo-den', t0 + 2)], { 'leo-den': 'busy' }), clock.now());
    const advancedAt = clock.now();
    const still = obs([sess('leo-den', t0 + 2)]);
    for (let i = 0; i < 7; i++) {
      clock.advance(2000);
      assert.deepEqual(tracker.observe(DEN, still, clock.now()), [], `sweep ${i}`);
      assert.equal(tracker.snapshot('den').activity, 'working');
      assert.deepEqual(tracker.snapshot('den').current_action, { kind: 'pane', detail: 'busy' });
    }
    clock.advance(advancedAt + 15_000 - clock.now());
    assert.deepEqual(tracker.observe(DEN, still, clock.now()), [], 'exactly 15 s is not longer than 15 s');
    clock.advance(1);
    assert.deepEqual(tracker.observe(DEN, still, clock.now()), [
      { agent: 'den', activity: 'idle', current_action: null, last_activity_at: (t0 + 2) * 1000 },
    ]);
  });

  it("a Stop makes a working agent idle at once; the turn's tail stays idle, a later advance is working", () => {
    const { clock, tracker, sec } = setup();
    const t0 = sec();
    tracker.observe(DEN, obs([sess('leo-den', t0)]), clock.now());
    clock.advance(2000);
    tracker.observe(DEN, obs([sess('leo-den', t0 + 2)], { 'leo-den': 'thinking' }), clock.now());
    clock.advance(2000);
    assert.deepEqual(tracker.turnEnded('den', clock.now()), [
      { agent: 'den', activity: 'idle', current_action: null, last_activity_at: (t0 + 2) * 1000 },
    ]);
    assert.equal(tracker.snapshot('den').activity, 'idle');
    // The CLI redraws its prompt right after the Stop: the same turn, still idle, though last seen moves.
    clock.advance(2000);
    assert.deepEqual(tracker.observe(DEN, obs([sess('leo-den', t0 + 5)], { 'leo-den': '> ' }), clock.now()), []);
    assert.deepEqual(tracker.snapshot('den'), {
      activity: 'idle',
      current_action: null,
      last_activity_at: (t0 + 5) * 1000,
    });
    clock.advance(4000);
    const next = tracker.observe(DEN, obs([sess('leo-den', t0 + 9)], { 'leo-den': 'next turn' }), clock.now());
    assert.deepEqual(
      next.map((c) => c.activity),
      ['working'],
    );
  });

  it('a Stop for an agent no sweep has seen, or one not running, changes nothing', () => {
    const { clock, tracker, sec } = setup();
    assert.deepEqual(tracker.turnEnded('den', clock.now()), []);
    assert.equal(tracker.snapshot('den').activity, 'unknown');
    tracker.observe(DEN, obs([sess('leo-den', sec())]), clock.now());
    tracker.observe([], obs([]), clock.now());
    assert.deepEqual(tracker.turnEnded('den', clock.now()), []);
    assert.equal(tracker.snapshot('den').activity, 'unknown');
  });

  it('a Stop right after working was published is held back by the rate limit, not lost', () => {
    const { clock, tracker, sec } = setup();
    const t0 = sec();
    tracker.observe(DEN, obs([sess('leo-den', t0)]), clock.now());
    clock.advance(2000);
    tracker.observe(DEN, obs([sess('leo-den', t0 + 2)], { 'leo-den': 'busy' }), clock.now());
    clock.advance(300);
    assert.deepEqual(tracker.turnEnded('den', clock.now()), []);
    assert.equal(tracker.snapshot('den').activity, 'idle');
    assert.equal(tracker.nextDueAt(), clock.now() + 700);
    clock.advance(700);
    assert.deepEqual(
      tracker.flushDue(clock.now()).map((c) => c.activity),
      ['idle'],
    );
  });

  it('an unknown first sighting that never advances becomes idle after the threshold', () => {
    const { clock, tracker, sec } = setup();
    const t0 = sec();
    tracker.observe(DEN, obs([sess('leo-den', t0)]), clock.now());
    clock.advance(16_000);
    const [change] = tracker.observe(DEN, obs([sess('leo-den', t0)]), clock.now());
    assert.equal(change?.activity, 'idle');
  });

  it('a session already quiet for longer than the threshold when first seen is idle at once', () => {
    const { clock, tracker, sec } = setup();
    const changes = tracker.observe(DEN, obs([sess('leo-den', sec() - 3600)]), clock.now());
    assert.deepEqual(changes, [
      { agent: 'den', activity: 'idle', current_action: null, last_activity_at: (sec() - 3600) * 1000 },
    ]);
  });

  it('no session, a dead pane, or an agent no longer running is unknown', () => {
    for (const gone of ['no session', 'dead pane', 'not running'] as const) {
      const { clock, tracker, sec } = setup();
      const t0 = sec();
      tracker.observe(DEN, obs([sess('leo-den', t0)]), clock.now());
      clock.advance(2000);
      tracker.observe(DEN, obs([sess('leo-den', t0 + 2)], { 'leo-den': 'x' }), clock.now());
      clock.advance(2000);
      const changes =
        gone === 'no session'
          ? tracker.observe(DEN, obs([]), clock.now())
          : gone === 'dead pane'
            ? tracker.observe(DEN, obs([sess('leo-den', t0 + 4, { paneDead: true, deadStatus: 1 })]), clock.now())
            : tracker.observe([], obs([sess('leo-den', t0 + 4)]), clock.now());
      assert.deepEqual(
        changes,
        [{ agent: 'den', activity: 'unknown', current_action: null, last_activity_at: (t0 + 2) * 1000 }],
        gone,
      );
      assert.deepEqual(tracker.baselines(DEN), {}, `${gone}: the baseline is dropped`);
    }
  });

  it('a session that comes back takes a fresh baseline before it can be working', () => {
    const { clock, tracker, sec } = setup();
    const t0 = sec();
    tracker.observe(DEN, obs([sess('leo-den', t0)]), clock.now());
    clock.advance(2000);
    tracker.observe(DEN, obs([]), clock.now());
    clock.advance(2000);
    tracker.observe(DEN, obs([sess('leo-den', t0 + 4)]), clock.now());
    assert.equal(tracker.snapshot('den').activity, 'unknown');
    clock.advance(2000);
    tracker.observe(DEN, obs([sess('leo-den', t0 + 6)], { 'leo-den': 'hi' }), clock.now());
    assert.equal(tracker.snapshot('den').activity, 'working');
  });

  it('a new session name or an activity that went backwards re-baselines', () => {
    const { clock, tracker, sec } = setup();
    const t0 = sec();
    tracker.observe(DEN, obs([sess('leo-den', t0)]), clock.now());
    clock.advance(2000);
    const renamed = [{ agent: 'den', session: 'leo-den2' }];
    tracker.observe(renamed, obs([sess('leo-den2', t0 + 2)]), clock.now());
    assert.equal(tracker.snapshot('den').activity, 'unknown');
    clock.advance(2000);
    tracker.observe(renamed, obs([sess('leo-den2', t0 - 10)]), clock.now());
    assert.equal(tracker.snapshot('den').activity, 'unknown');
    assert.deepEqual(tracker.baselines(renamed), { 'leo-den2': t0 - 10 });
  });

  it('keeps the last action while working when the pane was not captured, and takes a blank pane as null', () => {
    const { clock, tracker, sec } = setup();
    const t0 = sec();
    tracker.observe(DEN, obs([sess('leo-den', t0)]), clock.now());
    clock.advance(2000);
    tracker.observe(DEN, obs([sess('leo-den', t0 + 2)], { 'leo-den': 'first' }), clock.now());
    clock.advance(2000);
    tracker.observe(DEN, obs([sess('leo-den', t0 + 4)]), clock.now());
    assert.deepEqual(tracker.snapshot('den').current_action, { kind: 'pane', detail: 'first' });
    clock.advance(2000);
    tracker.observe(DEN, obs([sess('leo-den', t0 + 6)], { 'leo-den': null }), clock.now());
    assert.equal(tracker.snapshot('den').current_action, null);
    assert.equal(tracker.snapshot('den').activity, 'working');
  });

  it('publishes a new pane line while working, and nothing when only last_activity_at moved', () => {
    const { clock, tracker, sec } = setup();
    const t0 = sec();
    tracker.observe(DEN, obs([sess('leo-den', t0)]), clock.now());
    clock.advance(2000);
    assert.equal(tracker.observe(DEN, obs([sess('leo-den', t0 + 2)], { 'leo-den': 'a' }), clock.now()).length, 1);
    clock.advance(2000);
    assert.deepEqual(tracker.observe(DEN, obs([sess('leo-den', t0 + 4)], { 'leo-den': 'a' }), clock.now()), []);
    assert.equal(tracker.snapshot('den').last_activity_at, (t0 + 4) * 1000);
    clock.advance(2000);
    const [c] = tracker.observe(DEN, obs([sess('leo-den', t0 + 6)], { 'leo-den': 'b' }), clock.now());
    assert.deepEqual(c?.current_action, { kind: 'pane', detail: 'b' });
  });

  describe('publish rate limit', () => {
    function working() {
      const s = setup();
      const t0 = s.sec();
      s.tracker.observe(DEN, obs([sess('leo-den', t0)]), s.clock.now());
      s.clock.advance(2000);
      const first = s.tracker.observe(DEN, obs([sess('leo-den', t0 + 2)], { 'leo-den': 'one' }), s.clock.now());
      assert.equal(first.length, 1);
      return { ...s, t0, publishedAt: s.clock.now() };
    }

    it('a second change within 1 s is held back and published when due', () => {
      const { clock, tracker, t0, publishedAt } = working();
      clock.advance(300);
      assert.deepEqual(tracker.observe(DEN, obs([sess('leo-den', t0 + 3)], { 'leo-den': 'two' }), clock.now()), []);
      assert.equal(tracker.nextDueAt(), publishedAt + 1000);
      assert.deepEqual(tracker.flushDue(publishedAt + 999), []);
      const [late] = tracker.flushDue(publishedAt + 1000);
      assert.deepEqual(late?.current_action, { kind: 'pane', detail: 'two' });
      assert.equal(tracker.nextDueAt(), null);
      assert.deepEqual(tracker.flushDue(publishedAt + 5000), []);
    });

    it('of several changes within the window, the last one is the one published', () => {
      const { clock, tracker, t0, publishedAt } = working();
      clock.advance(200);
      tracker.observe(DEN, obs([sess('leo-den', t0 + 3)], { 'leo-den': 'two' }), clock.now());
      clock.advance(200);
      tracker.observe(DEN, obs([sess('leo-den', t0 + 4)], { 'leo-den': 'three' }), clock.now());
      clock.advance(200);
      tracker.observe(DEN, obs([]), clock.now());
      const flushed = tracker.flushDue(publishedAt + 1000);
      assert.deepEqual(flushed, [
        { agent: 'den', activity: 'unknown', current_action: null, last_activity_at: (t0 + 4) * 1000 },
      ]);
    });

    it('a held-back change that is undone before it is due publishes nothing', () => {
      const { clock, tracker, t0, publishedAt } = working();
      clock.advance(200);
      tracker.observe(DEN, obs([sess('leo-den', t0 + 3)], { 'leo-den': 'two' }), clock.now());
      assert.notEqual(tracker.nextDueAt(), null);
      clock.advance(200);
      tracker.observe(DEN, obs([sess('leo-den', t0 + 4)], { 'leo-den': 'one' }), clock.now());
      assert.equal(tracker.nextDueAt(), null);
      assert.deepEqual(tracker.flushDue(publishedAt + 1000), []);
    });

    it('a sweep at or after the due time publishes a held change itself', () => {
      const { clock, tracker, t0, publishedAt } = working();
      clock.advance(500);
      tracker.observe(DEN, obs([sess('leo-den', t0 + 3)], { 'leo-den': 'two' }), clock.now());
      clock.advance(publishedAt + 1000 - clock.now());
      const [c] = tracker.observe(DEN, obs([sess('leo-den', t0 + 3)]), clock.now());
      assert.deepEqual(c?.current_action, { kind: 'pane', detail: 'two' });
      assert.equal(tracker.nextDueAt(), null);
    });

    it('limits per agent: another agent publishes at the same moment', () => {
      const { clock, tracker, t0 } = working();
      const both = [...DEN, { agent: 'plex', session: 'leo-plex' }];
      clock.advance(100);
      const changes = tracker.observe(
        both,
        obs([sess('leo-den', t0 + 3), sess('leo-plex', Math.floor(clock.now() / 1000) - 100)], { 'leo-den': 'two' }),
        clock.now(),
      );
      assert.deepEqual(
        changes.map((c) => [c.agent, c.activity]),
        [['plex', 'idle']],
      );
    });
  });

  it('snapshot of an agent never seen is unknown; forget drops one', () => {
    const { clock, tracker, sec } = setup();
    assert.deepEqual(tracker.snapshot('ghost'), { activity: 'unknown', current_action: null, last_activity_at: null });
    tracker.observe(DEN, obs([sess('leo-den', sec() - 100)]), clock.now());
    assert.equal(tracker.snapshot('den').activity, 'idle');
    tracker.forget('den');
    assert.equal(tracker.snapshot('den').last_activity_at, null);
  });

  it('last_activity_at outlives the session (last seen) and moves with a rename, which re-baselines', () => {
    const { clock, tracker, sec } = setup();
    const seen = (sec() - 100) * 1000;
    tracker.observe(DEN, obs([sess('leo-den', sec() - 100)]), clock.now());
    clock.advance(2000);
    const stopped = tracker.observe([], obs([]), clock.now());
    assert.deepEqual(stopped, [{ agent: 'den', activity: 'unknown', current_action: null, last_activity_at: seen }]);
    tracker.rename('den', 'lair');
    assert.deepEqual(tracker.snapshot('den'), { activity: 'unknown', current_action: null, last_activity_at: null });
    assert.equal(tracker.snapshot('lair').last_activity_at, seen);
    const LAIR = [{ agent: 'lair', session: 'leo-lair' }];
    assert.deepEqual(tracker.baselines(LAIR), {}, 'the renamed session is looked at afresh');
    tracker.observe(LAIR, obs([sess('leo-lair', sec())]), clock.now());
    assert.deepEqual(tracker.baselines(LAIR), { 'leo-lair': sec() });
  });

  it('the agent_activity event carries last_activity_at as RFC 3339', () => {
    const ms = Date.UTC(2026, 6, 31, 22, 44, 1);
    const e = activityEvent({ agent: 'den', activity: 'idle', current_action: null, last_activity_at: ms });
    assert.equal(Date.parse(e.last_activity_at!), ms);
    assert.match(e.last_activity_at!, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d([+-]\d\d:\d\d|Z)$/);
    assert.equal(
      activityEvent({ agent: 'x', activity: 'unknown', current_action: null, last_activity_at: null }).last_activity_at,
      null,
    );
  });
});

describe('capture selection', () => {
  it('captures only live sessions that advanced past a known baseline', () => {
    const sessions = [
      sess('advanced', 12),
      sess('same', 10),
      sess('no-baseline', 50),
      sess('dead', 12, { paneDead: true }),
      sess('older', 9),
    ];
    const baselines = { advanced: 10, same: 10, dead: 10, older: 10 };
    assert.deepEqual(sessionsToCapture(sessions, baselines), ['advanced']);
    assert.equal(advanced(undefined, 5), false);
    assert.equal(advanced(4, 5), true);
  });
});
