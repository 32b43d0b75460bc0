import net from 'node:net';
import type { Target } from '../helpers/http.js';

export interface Exchange {
  /** Everything the server sent before it closed the connection (or before `maxMs`). */
  text: string;
  /** When the server closed the connection, in ms after it opened; null if it was still open at `maxMs`. */
  closedAfterMs: number | null;
}

/**
 * Writes `chunks` to a raw connection, `gapMs` apart, and collects what comes back until the server closes it or
 * `maxMs` passes. For what an HTTP client library will not send: trickled bodies, headers past every limit.
 */
export function exchange(
  target: Target,
  chunks: (string | Buffer)[],
  opts: { gapMs?: number; maxMs: number },
): Promise<Exchange> {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    const socket = target.socketPath ? net.connect(target.socketPath) : net.connect(target.port!, '127.0.0.1');
    const received: Buffer[] = [];
    let closedAfterMs: number | null = null;
    let next = 0;
    let writer: NodeJS.Timeout | undefined;
    const finish = () => {
      clearTimeout(writer);
      clearTimeout(limit);
      socket.destroy();
      resolve({ text: Buffer.concat(received).toString('utf8'), closedAfterMs });
    };
    const limit = setTimeout(finish, opts.maxMs);
    const writeNext = () => {
      if (next >= chunks.length || socket.destroyed) return;
      socket.write(chunks[next++]!);
      writer = setTimeout(writeNext, opts.gapMs ?? 0);
    };
    socket.on('connect', writeNext);
    socket.on('data', (d: Buffer) => received.push(d));
    // A server that answers and closes while a request is still being written resets it: that is an answer too.
    socket.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code !== 'ECONNRESET' && err.code !== 'EPIPE') reject(err);
    });
    socket.on('close', () => {
      closedAfterMs = Date.now() - started;
      finish();
    });
  });
}

/** The status line and JSON body of a raw HTTP/1.1 answer. */
export function parseAnswer(text: string): { status: number; headers: string; body: unknown } {
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0);
  const split = text.indexOf('\r\n\r\n');
  const headers = split >= 0 ? text.slice(0, split) : text;
  const raw = split >= 0 ? text.slice(split + 4) : '';
  let body: unknown;
  try {
    body = JSON.parse(raw);
  } catch {
    body = raw;
  }
  return { status, headers, body };
}
