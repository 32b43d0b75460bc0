import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ManualClock } from '../../src/core/clock.js';
import { SnapshotCache } from '../../src/observe/snapshot-cache.js';

describe('SnapshotCache', () => {
  const setup = () => {
    const clock = new ManualClock(0);
    const cache = new SnapshotCache(clock, 1000);
    let builds = 0;
    const build = () => ({ n: ++builds });
    return { clock, cache, build, builds: () => builds };
  };

  it('serialises once while the version holds', () => {
    const { cache, build, builds } = setup();
    const cfg = {};
    assert.equal(cache.get([1, 0, cfg], build), '{"n":1}');
    assert.equal(cache.get([1, 0, cfg], build), '{"n":1}');
    assert.equal(builds(), 1);
  });

  it('rebuilds when any part of the version changes, objects by identity', () => {
    const { cache, build } = setup();
    const cfg = {};
    cache.get([1, 0, cfg], build);
    assert.equal(cache.get([2, 0, cfg], build), '{"n":2}');
    assert.equal(cache.get([2, 1, cfg], build), '{"n":3}');
    assert.equal(cache.get([2, 1, {}], build), '{"n":4}', 'an equal but new config is a new config');
  });

  it('rebuilds once the snapshot is maxAge old, for values derived from the clock', () => {
    const { clock, cache, build } = setup();
    cache.get([1], build);
    clock.advance(999);
    assert.equal(cache.get([1], build), '{"n":1}');
    clock.advance(1);
    assert.equal(cache.get([1], build), '{"n":2}');
  });
});
