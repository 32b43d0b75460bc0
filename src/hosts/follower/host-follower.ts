import type { Clock, TimerHandle } from '../../core/clock.js';
import { PEER_HEARTBEAT_MS } from '../../events/sse-hub.js';
import type { StateSnapshot } from '../../wire/fleet.js';
import { HelloEvent } from '../../wire/events.js';
import { PROTOCOL, type HostInfo, type HostStatus } from '../../wire/host.js';
import { SseParser } from '../../wire/sse-parser.js';
import type { HostClient } from '../host-client.js';
import { backoffMs, helloResumes, isGap, statusOf, type Cursor } from './follow-rules.js';

/** One event of the host's stream, as the host numbered it. */
export interface FollowedEvent {
  type: string;
  seq: number;
  data: Record<string, unknown>;
}

/** Who hears what a follower learns, in the order it learns it. */
export interface FollowerSubscriber {
  event(e: FollowedEvent): void;
  /** A fresh snapshot: at start, after the host restarted (a new boot_id), or after a gap. */
  snapshot(state: StateSnapshot): void;
  status(status: HostStatus, why: string | null): void;
}

export interface HostFollowerDeps {
  client: HostClient;
  token: string;
  clock: Clock;
  subscriber: FollowerSubscriber;
  /**
   * Where a previous follower of this host stood when it stopped (the hub's restart): a hello that matches it needs no
   * refetch, as the hub kept what that follower had been told.
   */
  from?: { cursor: Cursor };
  /** The host's heartbeat interval on a peer's stream (sse-hub.ts, PEER_HEARTBEAT_MS). */
  heartbeatMs?: number;
  /** How long the hello, and each snapshot, may take before the attempt counts as failed. */
  answerTimeoutMs?: number;
}

/** Thrown into a stream the follower gives up on, so its reader knows the reason is ours. */
class GaveUp extends Error {}

/**
 * Follows one host from the hub: its event stream with the peer token, one `/api/v1/state` fetch whenever the stream
 * cannot vouch for what the follower holds (start, new boot, gap), and the host's status. Every follower has its own
 * connection, AbortController, timers and backoff, so a hung host holds up only its own follower.
 */
export class HostFollower {
  private cursor: Cursor | null;
  private lastSnapshot: StateSnapshot | null = null;
  private currentStatus: HostStatus = 'offline';
  private lastError: string | null = null;
  private lastInfo: { info: HostInfo; rttMs: number } | null = null;
  private lastHeardAt = 0;
  private connected = false;
  private failures = 0;
  private abort: AbortController | null = null;
  private timer: TimerHandle | null = null;
  private stopped = false;
  private readonly heartbeatMs: number;
  private readonly answerTimeoutMs: number;

  constructor(private readonly deps: HostFollowerDeps) {
    this.cursor = deps.from?.cursor ?? null;
    this.heartbeatMs = deps.heartbeatMs ?? PEER_HEARTBEAT_MS;
    this.answerTimeoutMs = deps.answerTimeoutMs ?? 10_000;
  }

  start(): void {
    void this.follow();
  }

  stop(): void {
    this.stopped = true;
    this.timer?.cancel();
    this.abort?.abort(new GaveUp('stopped'));
  }

  get status(): HostStatus {
    return this.currentStatus;
  }

  get snapshot(): StateSnapshot | null {
    return this.lastSnapshot;
  }

  /** The boot and seq read last: what the hub stores to resume after its own restart. */
  get position(): Cursor | null {
    return this.cursor;
  }

  /** When the host last sent anything (an event or a heartbeat), on the follower's clock; null before it ever has. */
  get lastSeen(): number | null {
    return this.lastHeardAt || null;
  }

  get error(): string | null {
    return this.lastError;
  }

  /** Who the host said it is at the last connect, and that request's round trip. */
  get info(): { info: HostInfo; rttMs: number } | null {
    return this.lastInfo;
  }

  /**
   * Refetches the snapshot now, outside the stream: for a change the stream cannot say whole (an agent removed or
   * renamed arrives as agent_stopped). A failure drops the connection, so the next one refetches.
   */
  resync(): void {
    const abort = this.abort;
    if (!this.connected || !abort) return;
    this.refetch(abort).catch((err: unknown) => abort.abort(new GaveUp(`resync failed: ${(err as Error).message}`)));
  }

  private async follow(): Promise<void> {
    const abort = new AbortController();
    this.abort = abort;
    this.arm(this.answerTimeoutMs, () => abort.abort(new GaveUp(`no hello within ${this.answerTimeoutMs} ms`)));
    try {
      await this.greet(abort);
      const body = await this.deps.client.events(this.deps.token, abort.signal);
      await this.read(body, abort);
      throw new Error('the host ended its event stream');
    } catch (err) {
      if (this.stopped) return;
      const why = abort.signal.reason instanceof GaveUp ? abort.signal.reason.message : (err as Error).message;
      abort.abort(new GaveUp(why));
      this.retry(why);
    }
  }

  /** Each attempt first asks who the host is: a host upgraded to another major is refused, not misread. */
  private async greet(abort: AbortController): Promise<void> {
    const greeted = await this.deps.client.hostInfo(this.deps.token, abort.signal);
    const { protocol, version } = greeted.info;
    if (protocol.major !== PROTOCOL.major)
      throw new Error(
        `the host speaks protocol ${protocol.major}.${protocol.minor} (leo ${version}) and this hub ` +
          `${PROTOCOL.major}.${PROTOCOL.minor}: upgrade the older one`,
      );
    this.lastInfo = greeted;
  }

  private async read(body: ReadableStream<Uint8Array>, abort: AbortController): Promise<void> {
    const parser = new SseParser();
    const decoder = new TextDecoder();
    const reader = body.getReader();
    // undici does not always error a locked body when its fetch is aborted: the read loop would go on forever.
    abort.signal.addEventListener('abort', () => void reader.cancel(abort.signal.reason).catch(() => undefined), {
      once: true,
    });
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      // Any byte counts as heard: heartbeats are SSE comments, which the parser drops.
      this.lastHeardAt = this.deps.clock.now();
      for (const e of parser.feed(decoder.decode(value, { stream: true }))) {
        if (!this.connected) await this.hello(e.event, e.data, abort);
        else await this.receive(e.event, e.data, abort);
      }
    }
  }

  private async hello(type: string, data: string, abort: AbortController): Promise<void> {
    if (type !== 'hello') throw new Error(`the stream began with ${type}, not hello`);
    const hello = HelloEvent.parse(JSON.parse(data));
    const at = { bootId: hello.boot_id, seq: hello.seq };
    this.connected = true;
    this.failures = 0;
    this.lastError = null;
    this.watch(abort);
    const resumed = helloResumes(this.cursor, at);
    this.cursor = at;
    if (!resumed) await this.refetch(abort);
    this.setStatus('online');
  }

  private async receive(type: string, data: string, abort: AbortController): Promise<void> {
    const payload = JSON.parse(data) as Record<string, unknown>;
    const seq = typeof payload.seq === 'number' ? payload.seq : NaN;
    const gap = isGap(this.cursor!.seq, seq);
    this.cursor = { bootId: this.cursor!.bootId, seq };
    if (this.currentStatus !== 'online') this.setStatus('online');
    if (gap) await this.refetch(abort);
    this.deps.subscriber.event({ type, seq, data: payload });
  }

  /** Fetches the snapshot under the attempt's own deadline; failing it fails the attempt, keeping the last good one. */
  private async refetch(abort: AbortController): Promise<void> {
    const own = new AbortController();
    const giveUp = () => own.abort(new GaveUp(`no snapshot within ${this.answerTimeoutMs} ms`));
    abort.signal.addEventListener('abort', giveUp, { once: true });
    const deadline = this.deps.clock.setTimeout(giveUp, this.answerTimeoutMs);
    try {
      this.lastSnapshot = await this.deps.client.state(this.deps.token, own.signal);
    } catch (err) {
      // The next hello must refetch: what the follower holds is not vouched for.
      this.cursor = null;
      throw own.signal.reason instanceof GaveUp ? own.signal.reason : err;
    } finally {
      deadline.cancel();
      abort.signal.removeEventListener('abort', giveUp);
    }
    this.deps.subscriber.snapshot(this.lastSnapshot);
  }

  /** While connected, checks silence at the moment two heartbeat intervals would have passed since the last byte. */
  private watch(abort: AbortController): void {
    const check = () => {
      const now = this.deps.clock.now();
      if (statusOf(true, now, this.lastHeardAt, this.heartbeatMs) === 'stale') {
        const why = `nothing heard for ${now - this.lastHeardAt} ms`;
        this.setStatus('stale', why);
        abort.abort(new GaveUp(why));
        return;
      }
      this.arm(this.lastHeardAt + 2 * this.heartbeatMs - now, check);
    };
    this.arm(2 * this.heartbeatMs, check);
  }

  private retry(why: string): void {
    const wasStale = this.connected && this.currentStatus === 'stale';
    this.connected = false;
    this.lastError = why;
    // A silent stream is retried at once; the host is offline only when that attempt fails too.
    if (!wasStale) {
      this.failures++;
      this.setStatus('offline', why);
    }
    this.arm(wasStale ? 0 : backoffMs(this.failures), () => void this.follow());
  }

  private arm(ms: number, fn: () => void): void {
    this.timer?.cancel();
    this.timer = this.deps.clock.setTimeout(fn, ms);
  }

  private setStatus(status: HostStatus, why: string | null = null): void {
    if (status === this.currentStatus) return;
    this.currentStatus = status;
    this.deps.subscriber.status(status, why);
  }
}
