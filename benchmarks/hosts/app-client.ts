/**
 * The app's side of the hosts benchmarks, on a worker thread of its own so its reading never shares the hub's loop or
 * the benchmark's: one SSE stream from the hub, and for each relayed event of the timed type that carries its send
 * time the time from that send to its arrival here, kept per host until the main thread asks for them. The send time
 * is an agent_activity's `last_activity_at` (the fake hosts stamp it at the send; a real host's is its agent's last
 * activity, which is why the two types are never timed together) or a chat.message whose text is
 * `sent <ms since the epoch>` (what the real-daemon benchmark posts, to the microsecond). It also logs, untimed, what
 * a cut link shows in the app: each host_status and host_state with its arrival, and every chat.message's id.
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
export const wallNow = () => performance.timeOrigin + performance.now();

/** The text of a chat post whose hop the app client times. */
export const sentText = () => `sent ${wallNow()}`;

/** One host_status (`status`) or host_state (`status` null: the hub refetched the host) as it reached the app. */
export interface HostEvent {
  host: string;
  status: string | null;
  /** Arrival, on the wall clock to the microsecond (the same on every thread). */
  at: number;
}

/** What `log()` hands over: the host events and, per agent, the ids of its chat.message events, in arrival order. */
export interface AppLog {
  hosts: HostEvent[];
  messages: Record<string, string[]>;
}

/**
 * The reader, started at construction; `take()` hands over the hops timed since the last take, `log()` the host
 * events and message ids since the last log.
 */
export class AppClient {
  private readonly worker: Worker;

  constructor(hub: HubAddress, token: string, timed: TimedEvent) {
    const { host = '127.0.0.1', port } = hub;
    this.worker = new Worker(new URL(import.meta.url), { workerData: { tag: WORKER_TAG, host, port, token, timed } });
  }

  take(): Promise<Latencies> {
    return this.ask('take');
  }

  log(): Promise<AppLog> {
    return this.ask('log');
  }

  /** The worker answers in the order it is asked, so each answer goes to the oldest listener. */
  private ask<T>(what: 'take' | 'log'): Promise<T> {
    return new Promise((resolve) => {
      this.worker.once('message', resolve);
      this.worker.postMessage(what);
    });
  }

  close(): Promise<number> {
    return this.worker.terminate();
  }
}

interface Relayed {
  host?: string;
  status?: string;
  last_activity_at?: string;
  message?: { id: string; agent: string; text: string };
}

/** When the event was sent, or null for one that does not say. */
function sentAt(timed: TimedEvent, d: Relayed): number | null {
  if (timed === 'agent_activity') return d.last_activity_at ? Date.parse(d.last_activity_at) : null;
  const m = /^sent (\d+(?:\.\d+)?)$/.exec(d.message?.text ?? '');
  return m ? Number(m[1]) : null;
}

function read(host: string, port: number, token: string, timed: TimedEvent): void {
  let byHost: Latencies = {};
  let log: AppLog = { hosts: [], messages: {} };
  const parser = new SseParser();
  const req = http.get({ host, port, path: '/api/v1/events', headers: { authorization: `Bearer ${token}` } }, (res) => {
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => {
      const arrived = wallNow();
      for (const e of parser.feed(chunk)) {
        const logged = e.event === 'host_status' || e.event === 'host_state' || e.event === 'chat.message';
        if (e.event !== timed && !logged) continue;
        const d = JSON.parse(e.data) as Relayed;
        if (e.event === 'chat.message' && d.message) (log.messages[d.message.agent] ??= []).push(d.message.id);
        else if (logged) log.hosts.push({ host: d.host!, status: d.status ?? null, at: arrived });
        if (e.event !== timed) continue;
        const at = d.host ? sentAt(timed, d) : null;
        if (at !== null) (byHost[d.host!] ??= []).push(arrived - at);
      }
    });
  });
  req.on('error', (err) => console.error('app client:', err.message));
  parentPort!.on('message', (what: 'take' | 'log') => {
    if (what === 'log') {
      parentPort!.postMessage(log);
      log = { hosts: [], messages: {} };
      return;
    }
    parentPort!.postMessage(byHost);
    byHost = {};
  });
}

const data = workerData as { tag?: string; host: string; port: number; token: string; timed: TimedEvent } | undefined;
if (!isMainThread && data?.tag === WORKER_TAG) read(data.host, data.port, data.token, data.timed);
