import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ManualClock } from '../../src/core/clock.js';
import { EventBus } from '../../src/events/bus.js';
import type { BusEvent } from '../../src/events/event.js';
import type { EventType } from '../../src/wire/event-types.js';
import { publishRaw } from '../helpers/raw-publish.js';

describe('EventBus', () => {
  it('stamps a monotonic seq and an RFC 3339 time on every event', () => {
    const bus = new EventBus(new ManualClock(Date.UTC(2026, 6, 31, 22, 40, 6)));
    const got: BusEvent[] = [];
    bus.subscribe({ deliver: (e) => got.push(e) });
    publishRaw(bus, 'agent_activity', { agent: 'den' });
    publishRaw(bus, 'agent_stopped', { agent: 'den' });
    const [a, b] = got as [BusEvent, BusEvent];
    assert.deepEqual([a.seq, b.seq], [1, 2]);
    assert.match(a.at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d\d:\d\d$/);
    assert.equal(new Date(a.at).getTime(), Date.UTC(2026, 6, 31, 22, 40, 6));
    assert.deepEqual(a.data, { seq: 1, at: a.at, agent: 'den' });
    assert.equal(a.frame, `event: agent_activity\ndata: ${JSON.stringify(a.data)}\n\n`);
  });

  it('a subscriber starts right after the seq it registered at, with no gap and no repeat', () => {
    const bus = new EventBus(new ManualClock());
    publishRaw(bus, 'agent_activity');
    publishRaw(bus, 'agent_activity');
    const got: number[] = [];
    const sub = bus.subscribe({ deliver: (e) => got.push(e.seq) });
    assert.equal(sub.startSeq, 2);
    publishRaw(bus, 'agent_activity');
    publishRaw(bus, 'agent_activity');
    assert.deepEqual(got, [3, 4]);
    sub.unsubscribe();
    publishRaw(bus, 'agent_activity');
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
          publishRaw(bus, 'agent_stopped');
        }
      },
    });
    bus.subscribe({ deliver: (e) => logs[1]!.push(e.seq) });
    bus.subscribe({ deliver: (e) => logs[2]!.push(e.seq) });
    publishRaw(bus, 'agent_activity');
    for (const l of logs) assert.deepEqual(l, [1, 2]);
  });

  it('numbers each audience’s stream on its own: a fleet reader sees no gap where chat events went by', () => {
    const bus = new EventBus(new ManualClock());
    publishRaw(bus, 'chat.message');
    const fleet: BusEvent[] = [];
    const chat: BusEvent[] = [];
    const f = bus.subscribe({ deliver: (e) => fleet.push(e) }, 'fleet');
    const c = bus.subscribe({ deliver: (e) => chat.push(e) }, 'chat');
    assert.deepEqual([f.startSeq, c.startSeq], [0, 1]);
    const types = ['agent_activity', 'chat.message', 'chat.updated', 'agent_stopped', 'chat.read', 'agent_usage'];
    for (const type of types) publishRaw(bus, type as EventType, { type });
    assert.deepEqual(
      fleet.map((e) => [e.seq, e.data.seq, e.type]),
      [
        [1, 1, 'agent_activity'],
        [2, 2, 'agent_stopped'],
        [3, 3, 'agent_usage'],
      ],
    );
    assert.deepEqual(
      chat.map((e) => e.seq),
      [2, 3, 4, 5, 6, 7],
    );
    assert.match(fleet[1]!.frame, /^event: agent_stopped\ndata: \{"seq":2,/);
    assert.deepEqual([bus.lastSeq('fleet'), bus.lastSeq('chat')], [3, 7]);
    assert.deepEqual(bus.stats(), { subscribers: 2, published: 7 });
  });
});
