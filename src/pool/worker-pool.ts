import { setTimeout as sleep } from 'node:timers/promises';
import { Piscina } from 'piscina';
import type * as Tasks from '../../workers/pool-worker.js';

/** The worker's task table: each named export of workers/pool-worker.ts is a task. */
type TaskTable = typeof Tasks;
export type TaskName = keyof TaskTable;
export type TaskInput<K extends TaskName> = Parameters<TaskTable[K]>[0];
export type TaskOutput<K extends TaskName> = Awaited<ReturnType<TaskTable[K]>>;

/** Each worker's young generation at most (V8 splits it into its semi-spaces). */
const YOUNG_GENERATION_MB = 3;

/**
 * The longest a timer task waits for the one before it: past that it takes a thread of its own, so a slow change
 * summary (a huge tree) or a loaded machine never holds the sweep or a summary back by more.
 */
const BACKGROUND_WAIT_MS = 150;

/** Where the compiled pool worker lives: dist/workers/pool-worker.js, next to dist/src. */
const WORKER_FILE = new URL('../../workers/pool-worker.js', import.meta.url).href;

export interface PoolReadout {
  threads: number;
  maxThreads: number;
  queueSize: number;
  utilization: number;
  completed: number;
  runTimeP50Ms: number;
  waitTimeP50Ms: number;
}

/**
 * The one Piscina pool for heavy work (transcription, the tmux sweep, attachment pruning, audio judging, reply capture,
 * usage reads), so none of it runs on the main thread. Each task is a named export of the worker module, and `run` is
 * typed by it: a task's input and result are those of its export.
 */
export class WorkerPool {
  private readonly piscina: Piscina;
  /** Settles when the last timer task asked for has ended (or waited its longest). */
  private backgroundTail: Promise<unknown> = Promise.resolve();

  /**
   * The pool for work that recurs on a timer (the activity sweep, the change summaries): each such task starts once
   * the one before it ended, or after BACKGROUND_WAIT_MS. Each second both came due together, so two threads stayed
   * busy at idle and the second never reached its idle timeout (~18 MB of RSS: benchmarks/idle-rss.ts); one after the
   * other they take a few ms more and one thread. A task asked for on demand (a voice note, a reply) is not queued.
   */
  readonly background = {
    run: <K extends TaskName>(task: K, input: TaskInput<K>): Promise<TaskOutput<K>> => {
      const turn = Promise.race([this.backgroundTail, sleep(this.backgroundWaitMs, undefined, { ref: false })]);
      const result = turn.then(() => this.run(task, input));
      this.backgroundTail = result.catch(() => undefined);
      return result;
    },
  };

  private readonly backgroundWaitMs: number;

  constructor(opts: { threads: number; maxQueue: number; backgroundWaitMs?: number }) {
    this.backgroundWaitMs = opts.backgroundWaitMs ?? BACKGROUND_WAIT_MS;
    this.piscina = new Piscina({
      filename: WORKER_FILE,
      minThreads: 1,
      maxThreads: opts.threads,
      maxQueue: opts.maxQueue,
      idleTimeout: 30_000,
      // V8 grows a busy thread's young generation up to 16 MB per semi-space and keeps it: the sweep and the change
      // summaries, each second, grew every worker's to ~30 MB of RSS (benchmarks/idle-rss.ts). Their garbage is small
      // and short-lived, so a small one costs a few more scavenges and nothing else.
      resourceLimits: { maxYoungGenerationSizeMb: YOUNG_GENERATION_MB },
    });
  }

  run<K extends TaskName>(task: K, input: TaskInput<K>, signal?: AbortSignal): Promise<TaskOutput<K>> {
    return this.piscina.run(input, { name: task, ...(signal ? { signal } : {}) }) as Promise<TaskOutput<K>>;
  }

  readout(): PoolReadout {
    const p = this.piscina;
    return {
      threads: p.threads.length,
      maxThreads: p.options.maxThreads,
      queueSize: p.queueSize,
      utilization: p.utilization,
      completed: p.completed,
      runTimeP50Ms: p.histogram.runTime.p50,
      waitTimeP50Ms: p.histogram.waitTime.p50,
    };
  }

  /** Lets queued and running tasks finish, then ends the threads. */
  async close(): Promise<void> {
    await this.piscina.close();
  }
}
