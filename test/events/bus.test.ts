import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ManualClock } from '../../src/core/clock.js';
import { EventBus } from '../../src/events/bus.js';
import type { BusEvent } from '../../src/events/event.js';

describe('EventBus', () => {
  it('stamps a monotonic seq and an RFC 3339 time on every event', () => {
    const bus = new EventBus(new ManualClock(Date.UTC(2026, 6, 31, 22, 40, 6)));
    const a = bus.publish('agent_activity', { agent: 'den' });
    const b = bus.publish('agent_stopped', { agent: 'den' });
    assert.deepEqual([a.seq, b.seq], [1, 2]);
    assert.match(a.at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d\d:\d\d$/);
    assert.equal(new Date(a.at).getTime(), Date.UTC(2026, 6, 31, 22, 40, 6));
    assert.deepEqual(a.data, { seq: 1, at: a.at, agent: 'den' });
    assert.equal(a.frame, `event: agent_activity\ndata: ${JSON.stringify(a.data)}\n\n`);
  });

  it('a subscriber starts right after the seq it registered at, with no gap and no repeat', () => {
    const bus = new EventBus(new ManualClock());
    bus.publish('agent_activity');
    bus.publish('agent_activity');
    const got: number[] = [];
    const sub = bus.subscribe({ deliver: (e) => got.push(e.seq) });
    assert.equal(sub.startSeq, 2);
    bus.publish('agent_activity');
    bus.publish('agent_activity');
    assert.deepEqual(got, [3, 4]);
    sub.unsubscribe();
    bus.publish('agent_activity');
    assert.deepEqual(got, [3, 4]);
    assert.deepEqual(bus.stats(), { subscribers: 0, published: 5 });
  });

  it('fans every event out to every subscriber in seq order, even when one publishes from inside delivery', () => {
    const bus = new EventBus(new ManualClock());
    const logs: number[][] = [[], [], []];
    let reentered = false;
    bus.subscribe({
      deliver: (e: BusEvent) => {
        logs[0]!.push(e.seq);
        if (!reentered) {
          reentered = true;
          bus.publish('agent_stopped');
        }
      },
    });
    bus.subscribe({ deliver: (e) => logs[1]!.push(e.seq) });
    bus.subscribe({ deliver: (e) => logs[2]!.push(e.seq) });
    bus.publish('agent_activity');
    for (const l of logs) assert.deepEqual(l, [1, 2]);
  });
});
