import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { KeyedQueue } from '../../src/core/keyed-queue.js';

const gate = () => {
  let open!: () => void;
  const opened = new Promise<void>((r) => (open = r));
  return { open, opened };
};

describe('KeyedQueue', () => {
  it('runs one task at a time per key, in order, and keys side by side', async () => {
    const q = new KeyedQueue();
    const order: string[] = [];
    const first = gate();
    const a1 = q.run('a', async () => {
      await first.opened;
      order.push('a1');
    });
    const a2 = q.run('a', async () => void order.push('a2'));
    await q.run('b', async () => void order.push('b1'));
    assert.deepEqual(order, ['b1'], 'b does not wait behind a');
    first.open();
    await Promise.all([a1, a2]);
    assert.deepEqual(order, ['b1', 'a1', 'a2']);
  });

  it('is busy for a key while a task runs or waits, and forgets the key once its last task settles', async () => {
    const q = new KeyedQueue();
    const g = gate();
    const running = q.run('a', () => g.opened);
    const failing = q.run('a', async () => {
      throw new Error('no');
    });
    assert.equal(q.busy('a'), true);
    assert.equal(q.busy('b'), false);
    g.open();
    await running;
    await assert.rejects(failing, /no/);
    assert.equal(q.busy('a'), false);
  });

  it('onIdle waits for tasks added while it waits', async () => {
    const q = new KeyedQueue();
    const done: string[] = [];
    void q.run('a', async () => {
      await new Promise((r) => setImmediate(r));
      void q.run('b', async () => {
        await new Promise((r) => setImmediate(r));
        done.push('b');
      });
      done.push('a');
    });
    await q.onIdle();
    assert.deepEqual(done, ['a', 'b']);
  });
});
