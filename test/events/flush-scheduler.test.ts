import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FlushScheduler } from '../../src/events/flush-scheduler.js';

describe('FlushScheduler', () => {
  const setup = (slice: number) => {
    const turns: (() => void)[] = [];
    const flushed: number[] = [];
    const scheduler = new FlushScheduler(slice, (fn) => turns.push(fn));
    const stream = (n: number) => ({ flush: () => flushed.push(n) });
    /** Runs one deferred turn, as the event loop would; returns what it flushed. */
    const turn = () => {
      const before = flushed.length;
      turns.shift()!();
      return flushed.slice(before);
    };
    return { scheduler, stream, turn, turns, flushed };
  };

  it('flushes nothing until the loop turns, then at most a slice per turn, in order', () => {
    const { scheduler, stream, turn, turns } = setup(3);
    for (let i = 0; i < 7; i++) scheduler.schedule(stream(i));
    assert.equal(turns.length, 1, 'one deferral however many streams');
    assert.deepEqual(turn(), [0, 1, 2]);
    assert.deepEqual(turn(), [3, 4, 5]);
    assert.deepEqual(turn(), [6]);
    assert.equal(turns.length, 0, 'idle once everything is flushed');
  });

  it('streams scheduled while slices run join the same pass, behind the others', () => {
    const { scheduler, stream, turn } = setup(2);
    scheduler.schedule(stream(0));
    scheduler.schedule(stream(1));
    scheduler.schedule(stream(2));
    assert.deepEqual(turn(), [0, 1]);
    scheduler.schedule(stream(3));
    assert.deepEqual(turn(), [2, 3]);
  });

  it('starts a new pass after going idle', () => {
    const { scheduler, stream, turn, turns } = setup(2);
    scheduler.schedule(stream(0));
    assert.deepEqual(turn(), [0]);
    scheduler.schedule(stream(1));
    assert.equal(turns.length, 1);
    assert.deepEqual(turn(), [1]);
  });
});
