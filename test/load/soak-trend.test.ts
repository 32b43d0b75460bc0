import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { floors, perMinute, secondHalf, slope } from '../../benchmarks/soak/trend.js';

/** A garbage-collected heap: climbs 20 MB between collections every 10 s, on a floor that rises `leak` MB/min. */
const sawtooth = (leak: number, seconds = 600, every = 5) =>
  Array.from({ length: seconds / every + 1 }, (_, i) => {
    const t = i * every;
    return { t, v: 100 + (leak * t) / 60 + 20 * ((t % 10) / 10) };
  });

describe('soak trend arithmetic', () => {
  it('fits the slope of a line exactly, and has none for a single point', () => {
    assert.equal(slope([0, 1, 2, 3], [5, 7, 9, 11]), 2);
    assert.ok(Number.isNaN(slope([1], [1])));
    assert.ok(Number.isNaN(slope([2, 2], [1, 3])));
  });

  it('keeps the second half of the samples by time, the first being warm-up', () => {
    const pts = [0, 10, 20, 30, 40].map((t) => ({ t }));
    assert.deepEqual(
      secondHalf(pts).map((p) => p.t),
      [20, 30, 40],
    );
  });

  it('sees through the sawtooth: no growth on a flat floor, the leak on a rising one', () => {
    const floorSlope = (leak: number) =>
      perMinute(
        floors(secondHalf(sawtooth(leak)), (p) => p.v, 10),
        (f) => f.v,
      );
    assert.ok(Math.abs(floorSlope(0)) < 0.1, `flat: ${floorSlope(0)}`);
    assert.ok(Math.abs(floorSlope(1.5) - 1.5) < 0.1, `leaking: ${floorSlope(1.5)}`);
  });
});
