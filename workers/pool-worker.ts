/**
 * The Piscina worker module. Each named export is one kind of heavy task; the main thread picks it with
 * `pool.run(name, input)`, typed by this table (src/pool/worker-pool.ts). Each task's input and result types live in
 * src beside its pure code.
 */

/** Round-trip probe: proves at start-up that worker threads load and answer, and reports which thread did. */
export async function ping(input: { at: number }): Promise<{ at: number; threadId: number }> {
  const { threadId } = await import('node:worker_threads');
  return { at: input.at, threadId };
}

/**
 * A task whose module is loaded on its first run. A thread of an idle daemon runs only the sweep and the change
 * summaries; the rest (transcript readers, audio, pruning, checkpoints) waits until a turn, a voice note or a timer
 * needs it. None of them may bring zod, ~10 MB a thread (test/pool/pool-thread-modules.test.ts).
 */
function onFirstRun<M, K extends keyof M>(load: () => Promise<M>, name: K): M[K] {
  return (async (input: unknown) => ((await load())[name] as (input: unknown) => unknown)(input)) as M[K];
}

export { sweep } from './sweep.js';
export { changeSummaries } from './change-summary.js';
export const captureReplyTask = onFirstRun(() => import('./reply-capture.js'), 'captureReplyTask');
export const pruneFiles = onFirstRun(() => import('./prune.js'), 'pruneFiles');
export const transcribe = onFirstRun(() => import('./transcribe.js'), 'transcribe');
export const judgeAudio = onFirstRun(() => import('./audio-judge.js'), 'judgeAudio');
export const readTurnUsage = onFirstRun(() => import('./turn-usage.js'), 'readTurnUsage');
export const checkpointWal = onFirstRun(() => import('./wal-checkpoint.js'), 'checkpointWal');
