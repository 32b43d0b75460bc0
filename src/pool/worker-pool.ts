import { Piscina } from 'piscina';

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
 * The one Piscina pool for heavy work (transcription, the tmux sweep, attachment pruning), so none of it runs on the
 * main thread. Each task is a named export of the worker module.
 */
export class WorkerPool {
  private readonly piscina: Piscina;

  constructor(opts: { threads: number; maxQueue: number }) {
    this.piscina = new Piscina({
      filename: WORKER_FILE,
      minThreads: 1,
      maxThreads: opts.threads,
      maxQueue: opts.maxQueue,
      idleTimeout: 30_000,
    });
  }

  run<T>(task: string, input: unknown, signal?: AbortSignal): Promise<T> {
    return this.piscina.run(input, { name: task, ...(signal ? { signal } : {}) }) as Promise<T>;
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
