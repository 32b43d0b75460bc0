import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MAX_BATCH_BYTES, planCaptureBatches, splitCaptureBatch } from '../../src/tmux/capture-batch.js';

const target = (n: string) => `=${n}:`;

describe('capture batches', () => {
  it('chains a marker and a capture per session', () => {
    assert.deepEqual(planCaptureBatches(['a', 'b'], 0, 'n0nce', target), [
      {
        indexes: [0, 1],
        commands: [
          ['display-message', '-p', 'n0nce:0'],
          ['capture-pane', '-p', '-J', '-t', '=a:', '-S', '-0'],
          ['display-message', '-p', 'n0nce:1'],
          ['capture-pane', '-p', '-J', '-t', '=b:', '-S', '-0'],
        ],
      },
    ]);
    assert.deepEqual(planCaptureBatches([], 0, 'n', target), []);
  });

  it('splits a large fleet into calls that fit tmux message size, keeping every index once', () => {
    const names = Array.from({ length: 300 }, (_, i) => `agent-with-a-rather-long-name-${i}`.padEnd(120, 'x'));
    const batches = planCaptureBatches(names, 50, 'abcdef0123456789', target);
    assert.ok(batches.length > 1);
    for (const b of batches) {
      const argv = b.commands.flat().reduce((n, a) => n + a.length + 1, 0) + 2 * (b.commands.length - 1);
      assert.ok(argv <= MAX_BATCH_BYTES);
    }
    assert.deepEqual(
      batches.flatMap((b) => b.indexes),
      names.map((_, i) => i),
    );
  });

  it('splits the output by marker', () => {
    const out = 'N:0\nfirst pane\nline 2\nN:1\nN:2\nthird\n';
    const { captures, failed } = splitCaptureBatch(out, 'N', true);
    assert.deepEqual(
      [...captures],
      [
        [0, 'first pane\nline 2\n'],
        [1, ''],
        [2, 'third\n'],
      ],
    );
    assert.equal(failed, null);
  });

  it('on a failed call, the capture after the last marker is the failed one', () => {
    const { captures, failed } = splitCaptureBatch('N:0\nok\nN:1\n', 'N', false);
    assert.deepEqual([...captures], [[0, 'ok\n']]);
    assert.equal(failed, 1);
    assert.deepEqual(splitCaptureBatch('', 'N', false), { captures: new Map(), failed: null });
  });

  it('a pane line that only looks like a marker is pane text', () => {
    const { captures } = splitCaptureBatch('N:0\nM:1\nN:x\nN:1 \nend\n', 'N', true);
    assert.deepEqual([...captures], [[0, 'M:1\nN:x\nN:1 \nend\n']]);
  });
});
