import PQueue from 'p-queue';

interface Lane {
  queue: PQueue;
  /** Tasks added and not yet settled. */
  open: number;
}

/**
 * Runs tasks one at a time per key, in the order they were added; different keys run in parallel. A key's lane goes
 * once its last task settles, so keys that come and go (agents, sessions) leave nothing behind.
 */
export class KeyedQueue {
  private readonly lanes = new Map<string, Lane>();

  run<T>(key: string, task: () => Promise<T>): Promise<T> {
    let lane = this.lanes.get(key);
    if (!lane) {
      lane = { queue: new PQueue({ concurrency: 1 }), open: 0 };
      this.lanes.set(key, lane);
    }
    const ran = lane.queue.add(task) as Promise<T>;
    lane.open++;
    const settled = () => {
      if (--lane.open === 0 && this.lanes.get(key) === lane) this.lanes.delete(key);
    };
    ran.then(settled, settled);
    return ran;
  }

  /** Whether a task of `key` runs or waits. */
  busy(key: string): boolean {
    return this.lanes.has(key);
  }

  /** Resolves once no task runs or waits under any key, counting those added while it waits. */
  async onIdle(): Promise<void> {
    while (this.lanes.size) await Promise.all([...this.lanes.values()].map((l) => l.queue.onIdle()));
  }
}
