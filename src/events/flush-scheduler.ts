/**
 * Flushes SSE streams in slices, one slice per turn of the event loop. Each stream used to flush in its own
 * setImmediate, and Node runs every immediate queued before the check phase in one go: an event fanned out to 1 000
 * sockets was one ~20 ms block of writes (profiled: almost all of it in writev), which is what the heavy-work
 * benchmark's event-loop delay measured even with nothing else running. A slice of writes, then a yield, lets timers,
 * incoming requests and pool replies in between; the total work and the order of streams are unchanged.
 */
export interface Flushable {
  flush(): void;
}

export class FlushScheduler {
  private pending: Flushable[] = [];
  private next = 0;
  private scheduled = false;

  constructor(
    private readonly slice: number,
    /** The yield between slices; setImmediate in the daemon, a manual queue in tests. */
    private readonly defer: (fn: () => void) => void = setImmediate,
  ) {}

  /** Queues one flush of `stream`; the caller keeps it from queueing twice before it runs. */
  schedule(stream: Flushable): void {
    this.pending.push(stream);
    if (!this.scheduled) {
      this.scheduled = true;
      this.defer(this.run);
    }
  }

  private readonly run = (): void => {
    const end = Math.min(this.pending.length, this.next + this.slice);
    for (; this.next < end; this.next++) this.pending[this.next]!.flush();
    if (this.next < this.pending.length) return this.defer(this.run);
    this.pending = [];
    this.next = 0;
    this.scheduled = false;
  };
}
