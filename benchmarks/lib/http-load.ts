/**
 * A closed-loop HTTP load client on a worker thread of its own, so the requests and their timing never share a loop
 * with the code that reads the daemon's figures: `concurrency` requests in flight over keep-alive sockets, each
 * started as the previous one answers, for a warm-up and then a measured window.
 */
import http from 'node:http';
import { performance } from 'node:perf_hooks';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';

export interface LoadJob {
  port: number;
  method: 'GET' | 'POST';
  headers: Record<string, string>;
  /** Rotated, one per request; a body is sent as JSON. */
  requests: { path: string; body?: string }[];
  concurrency: number;
  warmupMs: number;
  measureMs: number;
}

export interface LoadResult {
  /** ms, of the requests started inside the measured window. */
  latencies: number[];
  /** Every answered request, warm-up included. */
  total: number;
  bytes: number;
  errors: number;
  firstError: string | null;
}

const WORKER_TAG = 'leo-http-load';

/** The worker that runs the jobs, started on the first one; `close()` ends it (safe to call from an exit handler). */
export class LoadClient {
  private worker: Worker | undefined;

  run(job: LoadJob): Promise<LoadResult> {
    const w = (this.worker ??= new Worker(new URL(import.meta.url), { workerData: WORKER_TAG }));
    return new Promise((resolve, reject) => {
      const done = (r: LoadResult) => {
        w.off('error', reject);
        resolve(r);
      };
      w.once('message', done);
      w.once('error', reject);
      w.postMessage(job);
    });
  }

  async close(): Promise<void> {
    const w = this.worker;
    this.worker = undefined;
    await w?.terminate();
  }
}

async function runLoad(job: LoadJob): Promise<LoadResult> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: job.concurrency });
  const measureFrom = performance.now() + job.warmupMs;
  const end = measureFrom + job.measureMs;
  const out: LoadResult = { latencies: [], total: 0, bytes: 0, errors: 0, firstError: null };
  let next = 0;
  const once = (r: { path: string; body?: string }) =>
    new Promise<{ status: number; bytes: number; head: string }>((resolve, reject) => {
      const headers: Record<string, string> = { ...job.headers };
      if (r.body !== undefined) {
        headers['content-type'] = 'application/json';
        headers['content-length'] = String(Buffer.byteLength(r.body));
      }
      const req = http.request(
        { host: '127.0.0.1', port: job.port, method: job.method, path: r.path, agent, headers },
        (res) => {
          let bytes = 0;
          let head = '';
          res.on('data', (c: Buffer) => {
            if (head.length < 200) head += c.toString('utf8', 0, 200);
            bytes += c.length;
          });
          res.on('end', () => resolve({ status: res.statusCode ?? 0, bytes, head }));
          res.on('error', reject);
        },
      );
      req.on('error', reject);
      req.end(r.body);
    });
  const loop = async () => {
    while (performance.now() < end) {
      const r = job.requests[next++ % job.requests.length]!;
      const started = performance.now();
      try {
        const res = await once(r);
        const ms = performance.now() - started;
        out.total++;
        if (res.status >= 300) {
          out.errors++;
          out.firstError ??= `${res.status} ${res.head}`;
        } else if (started >= measureFrom) {
          out.latencies.push(ms);
          out.bytes += res.bytes;
        }
      } catch (err) {
        out.errors++;
        out.firstError ??= (err as Error).message;
      }
    }
  };
  await Promise.all(Array.from({ length: job.concurrency }, loop));
  agent.destroy();
  return out;
}

if (!isMainThread && workerData === WORKER_TAG)
  parentPort!.on('message', (job: LoadJob) => void runLoad(job).then((r) => parentPort!.postMessage(r)));
