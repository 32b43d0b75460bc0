/**
 * The app's side of the hosts benchmarks, on a worker thread of its own so its reading never shares the hub's loop or
 * the benchmark's: one SSE stream from the hub, and for each relayed event of the timed type that carries its send
 * time the time from that send to its arrival here, kept per host until the main thread asks for them. The send time
 * is an agent_activity's `last_activity_at` (the fake hosts stamp it at the send; a real host's is its agent's last
 * activity, which is why the two types are never timed together) or a chat.message whose text is
 * `sent <ms since the epoch>` (what the real-daemon benchmark posts, to the microsecond).
 */
import http from 'node:http';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';
import { SseParser } from '../../src/wire/sse-parser.js';

const WORKER_TAG = 'leo-bench-app-client';

export type Latencies = Record<string, number[]>;

export type TimedEvent = 'agent_activity' | 'chat.message';

/** Where the hub listens: 127.0.0.1 unless given. */
export interface HubAddress {
  host?: string;
  port?: number;
}

/** The wall clock to the microsecond, the same on every thread (Date.now() counts whole milliseconds). */
const now = () => performance.timeOrigin + performance.now();

/** The text of a chat post whose hop the app client times. */
export const sentText = () => `sent ${now()}`;

/** The reader, started at construction; `take()` hands over what arrived since the last take. */
export class AppClient {
  private readonly worker: Worker;

  constructor(hub: HubAddress, token: string, timed: TimedEvent) {
    const { host = '127.0.0.1', port } = hub;
    this.worker = new Worker(new URL(import.meta.url), { workerData: { tag: WORKER_TAG, host, port, token, timed } });
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

interface Relayed {
  host?: string;
  last_activity_at?: string;
  message?: { text: string };
}

/** When the event was sent, or null for one that does not say. */
function sentAt(timed: TimedEvent, d: Relayed): number | null {
  if (timed === 'agent_activity') return d.last_activity_at ? Date.parse(d.last_activity_at) : null;
  const m = /^sent (\d+(?:\.\d+)?)$/.exec(d.message?.text ?? '');
  return m ? Number(m[1]) : null;
}

function read(host: string, port: number, token: string, timed: TimedEvent): void {
  let byHost: Latencies = {};
  const parser = new SseParser();
  const req = http.get({ host, port, path: '/api/v1/events', headers: { authorization: `Bearer ${token}` } }, (res) => {
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => {
      const arrived = now();
      for (const e of parser.feed(chunk)) {
        if (e.event !== timed) continue;
        const d = JSON.parse(e.data) as Relayed;
        const at = d.host ? sentAt(timed, d) : null;
        if (at !== null) (byHost[d.host!] ??= []).push(arrived - at);
      }
    });
  });
  req.on('error', (err) => console.error('app client:', err.message));
  parentPort!.on('message', () => {
    parentPort!.postMessage(byHost);
    byHost = {};
  });
}

const data = workerData as { tag?: string; host: string; port: number; token: string; timed: TimedEvent } | undefined;
if (!isMainThread && data?.tag === WORKER_TAG) read(data.host, data.port, data.token, data.timed);
