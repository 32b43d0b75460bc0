import assert from 'node:assert/strict';
import net from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';

/** Rejects when `p` takes longer than `ms`: a daemon out of file descriptors does not answer at all. */
export function within<T>(ms: number, what: string, p: Promise<T>): Promise<T> {
  return Promise.race([
    p,
    new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms`)), ms)),
  ]);
}

/** Opens `n` TCP connections that send nothing; resolves once each has connected or been closed. */
export async function idleConnections(port: number, n: number): Promise<net.Socket[]> {
  const sockets = Array.from({ length: n }, () => net.connect(port, '127.0.0.1'));
  await Promise.all(
    sockets.map(
      (s) =>
        new Promise<void>((resolve) => {
          s.once('connect', () => resolve());
          s.once('close', () => resolve());
          s.on('error', () => resolve());
        }),
    ),
  );
  // Let the daemon accept (and push out) what the kernel queued.
  await sleep(500);
  return sockets;
}

/** One unlabelled figure from a /metrics text. */
export function metric(text: string, name: string): number {
  const m = new RegExp(`^${name} (\\S+)$`, 'm').exec(text);
  assert.ok(m, `${name} is not in /metrics`);
  return Number(m[1]);
}
