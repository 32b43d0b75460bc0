import http from 'node:http';
import type { Target } from './http.js';

export interface SseMessage {
  event: string;
  data: any;
}

/**
 * A minimal real SSE client over node:http: collects parsed events and comment lines, and lets a test await the
 * n-th event. It reads the wire format itself so tests check the framing, not a library's interpretation of it.
 */
export class SseClient {
  readonly events: SseMessage[] = [];
  readonly comments: string[] = [];
  status = 0;
  ended = false;
  private buffer = '';
  private waiters: Array<() => void> = [];
  private req!: http.ClientRequest;
  private res: http.IncomingMessage | null = null;

  static open(target: Target, path: string, token?: string): Promise<SseClient> {
    const client = new SseClient();
    return new Promise((resolve, reject) => {
      client.req = http.request(
        {
          path,
          headers: token ? { authorization: `Bearer ${token}` } : {},
          ...(target.socketPath
            ? { socketPath: target.socketPath }
            : { host: target.host ?? '127.0.0.1', port: target.port }),
        },
        (res) => {
          client.res = res;
          client.status = res.statusCode ?? 0;
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => client.feed(chunk));
          res.on('end', () => client.finish());
          res.on('close', () => client.finish());
          resolve(client);
        },
      );
      client.req.on('error', (err) => (client.res ? client.finish() : reject(err)));
      client.req.end();
    });
  }

  /** Resolves once at least `count` events (hello included) have arrived, or the stream has ended. */
  async waitFor(count: number, timeoutMs = 5000): Promise<SseMessage[]> {
    const deadline = Date.now() + timeoutMs;
    while (this.events.length < count && !this.ended) {
      if (Date.now() > deadline) throw new Error(`timed out with ${this.events.length}/${count} events`);
      await new Promise<void>((r) => {
        this.waiters.push(r);
        setTimeout(r, 50);
      });
    }
    return this.events;
  }

  async waitUntil(pred: () => boolean, timeoutMs = 5000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!pred()) {
      if (Date.now() > deadline) throw new Error('timed out waiting for the stream');
      await new Promise((r) => setTimeout(r, 20));
    }
  }

  close(): void {
    this.req.destroy();
  }

  private feed(chunk: string): void {
    const { frames, rest } = takeFrames(this.buffer + chunk);
    this.buffer = rest;
    for (const f of frames) {
      this.comments.push(...f.comments);
      if (f.data !== undefined) this.events.push({ event: f.event ?? 'message', data: JSON.parse(f.data) });
    }
    this.wake();
  }

  private finish(): void {
    this.ended = true;
    this.wake();
  }

  private wake(): void {
    const w = this.waiters;
    this.waiters = [];
    for (const f of w) f();
  }
}

export interface SseFrame {
  /** The `event:` line's value; undefined when the frame has none. */
  event?: string;
  /** The `data:` lines joined with newlines; undefined when the frame has none. */
  data?: string;
  comments: string[];
}

/** Cuts the complete frames off the front of `buffer`, parsed; `rest` is the unfinished tail, kept for the next chunk. */
export function takeFrames(buffer: string): { frames: SseFrame[]; rest: string } {
  const frames: SseFrame[] = [];
  let idx: number;
  while ((idx = buffer.indexOf('\n\n')) >= 0) {
    const block = buffer.slice(0, idx);
    buffer = buffer.slice(idx + 2);
    const frame: SseFrame = { comments: [] };
    const data: string[] = [];
    for (const line of block.split('\n')) {
      if (line.startsWith(':')) frame.comments.push(line.slice(1).trim());
      else if (line.startsWith('event: ')) frame.event = line.slice(7);
      else if (line.startsWith('data: ')) data.push(line.slice(6));
    }
    if (data.length) frame.data = data.join('\n');
    frames.push(frame);
  }
  return { frames, rest: buffer };
}
