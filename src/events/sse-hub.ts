import type { ServerResponse } from 'node:http';
import type { Principal } from '../wire/token-kinds.js';
import type { Clock, TimerHandle } from '../core/clock.js';
import type { EventBus } from './bus.js';
import { sseFrame } from './event.js';
import { readerAudience } from '../wire/event-types.js';
import type { FeatureSet } from '../core/features.js';
import { FlushScheduler } from './flush-scheduler.js';
import { SharedChunks } from './shared-chunk.js';
import { SseStream } from './sse-stream.js';

export const HEARTBEAT_MS = 20_000;
/**
 * A hub's follower (a peer token's stream) also gets one every 5 s: it calls a silent host stale after two intervals,
 * and the owner must see a cut link within 15 s (issue 31), where the spec's 20 s would take 40.
 */
export const PEER_HEARTBEAT_MS = 5_000;
/** Streams written per loop turn: ~1–2 ms of socket writes on two cores, short enough not to show as loop delay. */
const FLUSH_SLICE = 64;

export interface SseHubOptions {
  bus: EventBus;
  clock: Clock;
  features: FeatureSet;
  bootId: string;
  /** Read per connection so a config reload applies to the next subscriber. */
  maxQueued(): number;
}

/**
 * Owns every open /api/v1/events stream: hello on connect, one shared heartbeat timer, and shutdown. Each stream
 * receives the events its principal's audience receives (event-types.ts), numbered in that audience's sequence.
 */
export class SseHub {
  private readonly streams = new Set<SseStream>();
  private readonly peerStreams = new Set<SseStream>();
  private heartbeat: TimerHandle | null = null;
  private peerHeartbeat: TimerHandle | null = null;
  private droppedCount = 0;
  private readonly flushes = new FlushScheduler(FLUSH_SLICE);
  private readonly chunks = new SharedChunks();

  constructor(private readonly opts: SseHubOptions) {}

  open(res: ServerResponse, principal: Principal): void {
    // The body runs until the connection closes, as an SSE stream does anyway: without chunked encoding each flush
    // is one plain socket write, not a size line, the data and a CRLF (a third of a fan-out's CPU went to writes).
    res.useChunkedEncodingByDefault = false;
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      'x-accel-buffering': 'no',
    });
    // HEAD gets the stream's headers alone: Node holds them back until a body write that HEAD never makes, so the
    // request would hang with its subscriber attached until the client gave up.
    if (res.req.method === 'HEAD') return void res.end();
    res.socket?.setNoDelay(true);
    let subscription: { unsubscribe(): void } | null = null;
    const stream = new SseStream(res, {
      maxQueued: this.opts.maxQueued(),
      flushes: this.flushes,
      join: (frames) => this.chunks.join(frames),
      onDropped: () => this.droppedCount++,
      onClosed: () => {
        subscription?.unsubscribe();
        this.streams.delete(stream);
        this.peerStreams.delete(stream);
        this.updateHeartbeat();
      },
    });
    this.streams.add(stream);
    if (principal.kind === 'peer') this.peerStreams.add(stream);
    // Registration and the hello's seq come from one synchronous step: nothing can be published in between.
    const sub = this.opts.bus.subscribe(stream, readerAudience(principal));
    subscription = sub;
    stream.writeNow(
      sseFrame('hello', {
        seq: sub.startSeq,
        at: sub.startAt,
        boot_id: this.opts.bootId,
        features: this.opts.features.list(),
      }),
    );
    this.updateHeartbeat();
  }

  get subscribers(): number {
    return this.streams.size;
  }

  get dropped(): number {
    return this.droppedCount;
  }

  closeAll(): void {
    for (const s of [...this.streams]) s.end();
    this.updateHeartbeat();
  }

  private updateHeartbeat(): void {
    this.heartbeat = this.beat(this.heartbeat, this.streams, HEARTBEAT_MS);
    this.peerHeartbeat = this.beat(this.peerHeartbeat, this.peerStreams, PEER_HEARTBEAT_MS);
  }

  /** One timer per interval, running only while some stream needs it. */
  private beat(timer: TimerHandle | null, streams: Set<SseStream>, ms: number): TimerHandle | null {
    if (streams.size > 0 && !timer)
      return this.opts.clock.setInterval(() => {
        for (const s of streams) s.comment('heartbeat');
      }, ms);
    if (streams.size === 0 && timer) {
      timer.cancel();
      return null;
    }
    return timer;
  }
}
