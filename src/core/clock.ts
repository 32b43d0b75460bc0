/**
 * The clock seam. Everything that reads the time or waits on it takes a Clock, so tests can drive deadlines,
 * heartbeats and sweeps without sleeping.
 */
export interface TimerHandle {
  cancel(): void;
}

export interface Clock {
  now(): number;
  setTimeout(fn: () => void, ms: number): TimerHandle;
  setInterval(fn: () => void, ms: number): TimerHandle;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout(fn, ms) {
    const t = setTimeout(fn, ms);
    t.unref();
    return { cancel: () => clearTimeout(t) };
  },
  setInterval(fn, ms) {
    const t = setInterval(fn, ms);
    t.unref();
    return { cancel: () => clearInterval(t) };
  },
};

interface ManualTimer {
  at: number;
  every: number | null;
  fn: () => void;
  live: boolean;
}

/** A clock that only moves when told to; timers fire in due order inside advance(). */
export class ManualClock implements Clock {
  private timers: ManualTimer[] = [];

  constructor(private current = Date.UTC(2026, 0, 1)) {}

  now(): number {
    return this.current;
  }

  setTimeout(fn: () => void, ms: number): TimerHandle {
    return this.add({ at: this.current + Math.max(0, ms), every: null, fn, live: true });
  }

  setInterval(fn: () => void, ms: number): TimerHandle {
    const every = Math.max(1, ms);
    return this.add({ at: this.current + every, every, fn, live: true });
  }

  advance(ms: number): void {
    const target = this.current + ms;
    for (;;) {
      const due = this.timers.filter((t) => t.live && t.at <= target).sort((a, b) => a.at - b.at)[0];
      if (!due) break;
      this.current = due.at;
      if (due.every === null) due.live = false;
      else due.at += due.every;
      due.fn();
    }
    this.timers = this.timers.filter((t) => t.live);
    this.current = target;
  }

  private add(timer: ManualTimer): TimerHandle {
    this.timers.push(timer);
    return { cancel: () => void (timer.live = false) };
  }
}
