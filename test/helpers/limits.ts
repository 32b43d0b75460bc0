import assert from 'node:assert/strict';
import net from 'node:net';
import { request, type Target } from './http.js';
import { until } from './wait.js';

/** Rejects when `p` takes longer than `ms`: a daemon out of file descriptors does not answer at all. */
export function within<T>(ms: number, what: string, p: Promise<T>): Promise<T> {
  return Promise.race([
    p,
    new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms)),
  ]);
}

/**
 * Opens `n` TCP connections that send nothing; resolves once the daemon has taken in each that connected (it is open
 * there, by `metricsFrom`'s /metrics, or its close was seen here). In batches no larger than the listen backlog (511):
 * a handshake that overflowed it is completed here but not there, and on a loaded machine the SYN-ACK retries can run
 * out before the daemon drains its queue, leaving a socket this side believes open that the daemon never saw (CI once
 * waited 30 s on such a socket).
 */
export async function idleConnections(
  port: number,
  n: number,
  metricsFrom: Target,
  batch = 250,
): Promise<net.Socket[]> {
  const sockets: net.Socket[] = [];
  const connected = new Set<net.Socket>();
  while (sockets.length < n) {
    const opened = Array.from({ length: Math.min(batch, n - sockets.length) }, () => net.connect(port, '127.0.0.1'));
    sockets.push(...opened);
    await Promise.all(
      opened.map(
        (s) =>
          new Promise<void>((resolve) => {
            s.once('connect', () => (connected.add(s), resolve()));
            s.once('close', () => resolve());
            s.on('error', () => resolve());
          }),
      ),
    );
    await until(
      `the daemon to take in ${connected.size} connections`,
      async () => {
        const open = metric((await request(metricsFrom, 'GET', '/metrics')).text, 'leo_tcp_connections');
        const closed = [...connected].filter((s) => s.destroyed || s.readyState !== 'open').length;
        return open + closed >= connected.size;
      },
      30_000,
    );
  }
  return sockets;
}

/** One unlabelled figure from a /metrics text. */
export function metric(text: string, name: string): number {
  const m = new RegExp(`^${name} (\\S+)$`, 'm').exec(text);
  assert.ok(m, `${name} is not in /metrics`);
  return Number(m[1]);
}
