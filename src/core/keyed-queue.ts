import PQueue from 'p-queue';

/** Runs tasks one at a time per key, in the order they were added; different keys run in parallel. */
export class KeyedQueue {
  private readonly queues = new Map<string, PQueue>();

  run<T>(key: string, task: () => Promise<T>): Promise<T> {
    let q = this.queues.get(key);
    if (!q) {
      q = new PQueue({ concurrency: 1 });
      this.queues.set(key, q);
    }
    return q.add(task) as Promise<T>;
  }

  /** Resolves once every task added so far, under every key, has ended. */
  async onIdle(): Promise<void> {
    await Promise.all([...this.queues.values()].map((q) => q.onIdle()));
  }
}
