import type { BusEvent } from './event.js';
import type { Subscriber } from './bus.js';
import type { FlushScheduler } from './flush-scheduler.js';

export interface SseStreamOptions {
  /** Frames that may wait for the socket before the subscriber counts as too slow and is dropped. */
  maxQueued: number;
  /** Shared by every stream of the hub, so one fan-out's writes are spread over several loop turns. */
  flushes: FlushScheduler;
  /** Turns a flush's frames into the one chunk written; joined into a string when not given. */
  join?(frames: readonly string[]): string | Buffer;
  onDropped(): void;
  onClosed(): void;
}

/** What a stream writes to: an HTTP response, or an adapter that behaves like one (the chat endpoint's /ws). */
export interface FrameSink {
  /** False when the transport is backed up; a 'drain' follows. */
  write(chunk: string | Buffer): boolean;
  end(): void;
  destroy(): void;
  on(event: 'drain' | 'close', listener: () => void): unknown;
}

/**
 * One SSE connection. Frames published before its turn in the hub's flush schedule are coalesced into one write. While the socket is draining,
 * frames wait in a queue; a subscriber whose queue passes maxQueued is disconnected instead of being buffered without
 * bound (it is expected to reconnect and refetch the snapshot).
 */
export class SseStream implements Subscriber {
  private queue: string[] = [];
  private flushScheduled = false;
  private waitingForDrain = false;
  private closed = false;

  constructor(
    private readonly res: FrameSink,
    private readonly opts: SseStreamOptions,
  ) {
    res.on('drain', () => {
      this.waitingForDrain = false;
      this.flush();
    });
    res.on('close', () => this.close());
  }

  deliver(event: Pick<BusEvent, 'frame'>): void {
    this.enqueue(event.frame);
  }

  comment(text: string): void {
    this.enqueue(`: ${text}\n\n`);
  }

  /** Writes a frame ahead of any queue; used for `hello`, which must be the first thing the client reads. */
  writeNow(frame: string): void {
    if (!this.closed) this.waitingForDrain = !this.res.write(frame) || this.waitingForDrain;
  }

  /** Ends after writing what is still queued, even onto a draining socket: a stream's last frame (a chat turn's
   * `done`) must not be lost to back-pressure; the queue is bounded, so that write is too. */
  end(): void {
    if (this.closed) return;
    this.flushScheduled = false;
    if (this.queue.length > 0) this.res.write(this.queue.join(''));
    this.queue = [];
    this.res.end();
    this.close();
  }

  private enqueue(frame: string): void {
    if (this.closed) return;
    this.queue.push(frame);
    if (this.waitingForDrain) {
      // Only a socket that is not keeping up counts against the bound: that is the slow consumer.
      if (this.queue.length > this.opts.maxQueued) this.drop();
      return;
    }
    if (this.queue.length >= this.opts.maxQueued) {
      this.flush();
      return;
    }
    if (!this.flushScheduled) {
      this.flushScheduled = true;
      this.opts.flushes.schedule(this);
    }
  }

  flush(): void {
    this.flushScheduled = false;
    if (this.closed || this.waitingForDrain || this.queue.length === 0) return;
    const chunk = (this.opts.join ?? joinFrames)(this.queue);
    this.queue = [];
    if (!this.res.write(chunk)) this.waitingForDrain = true;
  }

  private drop(): void {
    this.opts.onDropped();
    this.queue = [];
    this.res.destroy();
    this.close();
  }

  private close(): void {
    if (this.closed) return;
    this.closed = true;
    this.queue = [];
    this.opts.onClosed();
  }
}

/** One frame as it is; several as one string. */
const joinFrames = (frames: readonly string[]): string => (frames.length === 1 ? frames[0]! : frames.join(''));
