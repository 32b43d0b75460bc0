import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { WorkerPool } from '../../src/pool/worker-pool.js';

describe('WorkerPool', () => {
  it('runs background tasks one after the other, so timer work keeps one thread; on-demand tasks get more', async (t) => {
    // A wait longer than the test, so a loaded machine's slow ping cannot let the next one start beside it.
    const pool = new WorkerPool({ threads: 2, maxQueue: 100, backgroundWaitMs: 60_000 });
    t.after(() => pool.close());
    const order: string[] = [];
    const background = (i: number) =>
      pool.background.run('ping', { at: i }).then((r) => {
        order.push(`b${r.at}`);
        return r.threadId;
      });
    const threads = new Set(await Promise.all(Array.from({ length: 20 }, (_, i) => background(i))));
    assert.deepEqual(
      order,
      Array.from({ length: 20 }, (_, i) => `b${i}`),
      'in the order asked',
    );
    assert.equal(threads.size, 1, 'all on one thread');
    assert.equal(pool.readout().threads, 1, 'no second thread started');
    // The same burst asked for on demand overflows the one thread: the pool starts its second.
    await Promise.all(Array.from({ length: 20 }, (_, i) => pool.run('ping', { at: i })));
    assert.equal(pool.readout().threads, 2);
  });

  it('a background task waits for the one before it at most its wait, then takes a thread of its own', async (t) => {
    const pool = new WorkerPool({ threads: 2, maxQueue: 100, backgroundWaitMs: 0 });
    t.after(() => pool.close());
    await Promise.all(Array.from({ length: 20 }, (_, i) => pool.background.run('ping', { at: i })));
    assert.equal(pool.readout().threads, 2, 'no waiting: the burst overflowed one thread');
  });
});
