/** The soak's arithmetic: least-squares slopes over the samples after warm-up, and the floor of a sawtooth. Pure. */

/** Least-squares slope of y over x; NaN with fewer than two distinct x. */
export function slope(xs: readonly number[], ys: readonly number[]): number {
  const n = Math.min(xs.length, ys.length);
  if (n < 2) return NaN;
  let sx = 0;
  let sy = 0;
  for (let i = 0; i < n; i++) {
    sx += xs[i]!;
    sy += ys[i]!;
  }
  const mx = sx / n;
  const my = sy / n;
  let num = 0;
  let den = 0;
  for (let i = 0; i < n; i++) {
    num += (xs[i]! - mx) * (ys[i]! - my);
    den += (xs[i]! - mx) ** 2;
  }
  return den === 0 ? NaN : num / den;
}

/** The points from the middle of the stretch on: the first half is warm-up (JIT, heap sizing, caches filling). */
export function secondHalf<T extends { t: number }>(points: readonly T[]): T[] {
  if (points.length === 0) return [];
  const from = (points[0]!.t + points.at(-1)!.t) / 2;
  return points.filter((p) => p.t >= from);
}

/**
 * The lowest value in each of `windows` equal stretches of time, at the stretch's midpoint. A garbage-collected heap
 * saws up and down by tens of MB between collections; its floor (what survived) is what a leak raises.
 */
export function floors<T extends { t: number }>(
  points: readonly T[],
  value: (p: T) => number,
  windows: number,
): { t: number; v: number }[] {
  if (points.length === 0) return [];
  const t0 = points[0]!.t;
  const span = points.at(-1)!.t - t0 || 1;
  const out: { t: number; v: number }[] = [];
  for (let w = 0; w < windows; w++) {
    const lo = t0 + (span * w) / windows;
    const hi = t0 + (span * (w + 1)) / windows;
    const inside = points.filter((p) => p.t >= lo && (w === windows - 1 ? p.t <= hi : p.t < hi)).map(value);
    if (inside.length) out.push({ t: (lo + hi) / 2, v: Math.min(...inside) });
  }
  return out;
}

/** Slope per minute of `value` over time in seconds. */
export function perMinute<T extends { t: number }>(points: readonly T[], value: (p: T) => number): number {
  return (
    slope(
      points.map((p) => p.t),
      points.map(value),
    ) * 60
  );
}
