// The order the runner hands test files to node's two workers, from each file's recorded duration
// (test/durations.json: path under dist/test → seconds). Longest first, so no long file starts last beside an idle
// core; a file with no record yet goes first, since it may be a long one.
import fs from 'node:fs';

/** Reads a durations file; a missing one is an empty record (every file then keeps its name order). */
export function readDurations(file) {
  return fs.existsSync(file) ? JSON.parse(fs.readFileSync(file, 'utf8')) : {};
}

/** `names` (paths under the test folder, sorted) longest recorded first, the unrecorded ahead of them all. */
export function longestFirst(names, durations) {
  const weight = (n) => durations[n] ?? Infinity;
  return [...names].sort((a, b) => weight(b) - weight(a) || (a < b ? -1 : 1));
}

/** The record with each passing file's seconds replaced by this run's (reporter lines: {file, seconds}). */
export function mergeDurations(durations, lines) {
  const next = { ...durations };
  for (const { file, seconds } of lines) next[file] = Math.round(seconds * 10) / 10;
  return Object.fromEntries(Object.entries(next).sort(([a], [b]) => (a < b ? -1 : 1)));
}

/**
 * Splits `names` into files run alone and `count` batches of short files, each batch run in one process. A file's
 * process start and imports (the daemon's module graph: about 0.7 CPU-s) cost more than many short files' tests, so
 * the short ones share processes: measured on 175 files under 10 s, 125 CPU-s less. A file with no record, or one of
 * `below` seconds or more, runs alone; the batches are balanced by recorded time, each in name order.
 */
export function batchShortFiles(names, durations, { below, count }) {
  const alone = names.filter((n) => !(durations[n] < below));
  const short = names.filter((n) => durations[n] < below).sort((a, b) => durations[b] - durations[a]);
  const batches = Array.from({ length: count }, () => ({ files: [], seconds: 0 }));
  for (const n of short) {
    const lightest = batches.reduce((a, b) => (b.seconds < a.seconds ? b : a));
    lightest.files.push(n);
    lightest.seconds += durations[n];
  }
  return {
    alone,
    batches: batches.filter((b) => b.files.length > 0).map((b) => ({ files: b.files.sort(), seconds: b.seconds })),
  };
}
