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

export { sweep } from './sweep.js';
export { captureReplyTask } from './reply-capture.js';
export { pruneFiles } from './prune.js';
export { transcribe } from './transcribe.js';
export { judgeAudio } from './audio-judge.js';
export { readTurnUsage } from './turn-usage.js';
export { changeSummaries } from './change-summary.js';
export { checkpointWal } from './wal-checkpoint.js';
