/**
 * The app's side of the fan-in benchmark, on a worker thread of its own so its reading never shares the hub's loop:
 * one SSE stream from the hub, and for each relayed agent_activity the time from the host's send (its
 * `last_activity_at`) to its arrival here, kept per host until the main thread asks for them.
 */
import http from 'node:http';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { SseParser } from '../../src/wire/sse-parser.js';

const WORKER_TAG = 'leo-bench-app-client';

export type Latencies = Record<string, number[]>;

/** The reader, started at construction; `take()` hands over what arrived since the last take. */
export class AppClient {
  private readonly worker: Worker;

  constructor(port: number, token: string) {
    this.worker = new Worker(new URL(import.meta.url), { workerData: { tag: WORKER_TAG, port, token } });
  }

  take(): Promise<Latencies> {
    return new Promise((resolve) => {
      this.worker.once('message', resolve);
      this.worker.postMessage('take');
    });
  }

  close(): Promise<number> {
    return this.worker.terminate();
  }
}

function read(port: number, token: string): void {
  let byHost: Latencies = {};
  const parser = new SseParser();
  const req = http.get(
    { host: '127.0.0.1', port, path: '/api/v1/events', headers: { authorization: `Bearer ${token}` } },
    (res) => {
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        const now = Date.now();
        for (const e of parser.feed(chunk)) {
          if (e.event !== 'agent_activity') continue;
          const d = JSON.parse(e.data) as { host?: string; last_activity_at?: string };
          if (!d.host || !d.last_activity_at) continue;
          (byHost[d.host] ??= []).push(now - Date.parse(d.last_activity_at));
        }
      });
    },
  );
  req.on('error', (err) => console.error('app client:', err.message));
  parentPort!.on('message', () => {
    parentPort!.postMessage(byHost);
    byHost = {};
  });
}

const data = workerData as { tag?: string; port: number; token: string } | undefined;
if (!isMainThread && data?.tag === WORKER_TAG) read(data.port, data.token);
