/**
 * The wait before retrying the daemon, by how many retries failed in a row. Capped at 5 s: the daemon is a local
 * process, and a restart is back within seconds — a longer cap only left the app down long after it returned. The
 * jitter (±25 %) keeps the devices and tabs that lost the same daemon from retrying in step.
 */
const STEPS_MS = [500, 1000, 2000, 5000];

export function backoffMs(attempt: number, random: () => number = Math.random): number {
  const step = STEPS_MS[Math.min(attempt, STEPS_MS.length - 1)]!;
  return Math.round(step * (0.75 + random() * 0.5));
}
