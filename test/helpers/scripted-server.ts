// What the scripted model servers (anthropic-server, openai-server, responses-server) share: a listener (on 127.0.0.1
// unless told otherwise), every request recorded, a queue of scripted replies, and a close() that does not wait for
// the client or for a reply still streaming. Each server adds only its wire protocol, in route().
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

export interface RecordedRequest {
  method: string;
  /** Path without the query string. */
  path: string;
  query: URLSearchParams;
  headers: http.IncomingHttpHeaders;
  /** Parsed JSON body, undefined when there was none or it was not JSON. */
  body: any;
  /** Real time it arrived (Date.now()). */
  at: number;
  /** Real time its answer was sent in full (performance.timeOrigin + performance.now()), once it was. */
  finished?: number;
}

export interface ListenOptions {
  /**
   * The address to listen on; default 127.0.0.1. CLIs run by daemons in a bench's network namespaces reach the test's
   * process only at the bench network's gateway (test/helpers/hosts/).
   */
  host?: string;
}

export abstract class ScriptedServer<Reply> {
  readonly requests: RecordedRequest[] = [];
  private readonly queue: Reply[];
  private readonly server = http.createServer((req, res) => this.record(req, res));
  private readonly sockets = new Set<Socket>();
  private readonly timers = new Map<NodeJS.Timeout, () => void>();
  private closed = false;
  private seq = 0;

  protected constructor(
    replies: Reply[] = [],
    private readonly defaultReply: Reply,
  ) {
    this.queue = [...replies];
    this.server.on('connection', (s) => {
      this.sockets.add(s);
      s.on('close', () => this.sockets.delete(s));
    });
  }

  /** Answers one recorded request: the server's wire protocol. */
  protected abstract route(rec: RecordedRequest, res: http.ServerResponse): void;

  protected async listen({ host = '127.0.0.1' }: ListenOptions = {}): Promise<this> {
    await new Promise<void>((resolve, reject) => {
      this.server.once('error', reject);
      this.server.listen(0, host, () => resolve());
    });
    return this;
  }

  /** http://<host>:<port>, which each server extends to the base URL its client takes. */
  protected get origin(): string {
    const { address, port } = this.server.address() as AddressInfo;
    return `http://${address}:${port}`;
  }

  /** Adds replies for the next requests the queue answers. */
  enqueue(...replies: Reply[]): void {
    this.queue.push(...replies);
  }

  /** What a request gets: the script's reply, else the next queued one (when `fromQueue`), else the default. */
  protected answer(scripted: Reply | undefined, fromQueue = true): Reply {
    return scripted ?? (fromQueue ? this.queue.shift() : undefined) ?? this.defaultReply;
  }

  /** A fresh id with this prefix, for the ids a reply carries (messages, tool calls, responses). */
  protected id(prefix: string): string {
    return `${prefix}${++this.seq}`;
  }

  /** Every distinct `METHOD path` seen, in order of first appearance: what the client called at all. */
  endpoints(): string[] {
    return [...new Set(this.requests.map((r) => `${r.method} ${r.path}`))];
  }

  async waitForRequest(pred: (r: RecordedRequest) => boolean, timeoutMs = 10_000): Promise<RecordedRequest> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const hit = this.requests.find(pred);
      if (hit) return hit;
      if (Date.now() > deadline) throw new Error(`no matching request within ${timeoutMs} ms; saw ${this.endpoints()}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const [t, wake] of this.timers) {
      clearTimeout(t);
      wake();
    }
    this.timers.clear();
    // The CLIs and fetch keep their connections alive; without this close() would wait for the client to hang up.
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  /** True once a streamed reply should stop writing: the client hung up, or close() ran. */
  protected stopped(res: http.ServerResponse): boolean {
    return res.destroyed || this.closed;
  }

  /** A timer close() can cut short, so a test ending mid-reply does not wait for the script. */
  protected sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const t = setTimeout(() => {
        this.timers.delete(t);
        resolve();
      }, ms);
      this.timers.set(t, resolve);
    });
  }

  /** Waits for `p`, or for close(): a test ending with a reply held does not wait for it. */
  protected until(p: Promise<unknown>): Promise<void> {
    return new Promise((resolve) => {
      const t = setTimeout(() => {}, 2 ** 31 - 1);
      this.timers.set(t, resolve);
      const done = () => {
        clearTimeout(t);
        this.timers.delete(t);
        resolve();
      };
      p.then(done, done);
    });
  }

  private record(req: http.IncomingMessage, res: http.ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'http://localhost');
      const raw = Buffer.concat(chunks).toString('utf8');
      let body: any;
      try {
        body = raw ? JSON.parse(raw) : undefined;
      } catch {
        body = undefined;
      }
      const rec: RecordedRequest = {
        method: req.method ?? 'GET',
        path: url.pathname,
        query: url.searchParams,
        headers: req.headers,
        body,
        at: Date.now(),
      };
      this.requests.push(rec);
      res.on('finish', () => (rec.finished = performance.timeOrigin + performance.now()));
      this.route(rec, res);
    });
  }
}

export function json(
  res: http.ServerResponse,
  status: number,
  value: unknown,
  headers: http.OutgoingHttpHeaders = {},
): void {
  const text = JSON.stringify(value);
  res.writeHead(status, { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

/** Cuts `text` into at most `parts` pieces of equal length, the deltas a stream sends; '' is one empty piece. */
export function split(text: string, parts: number): string[] {
  if (text === '') return [''];
  const n = Math.max(1, Math.min(parts, text.length));
  const size = Math.ceil(text.length / n);
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

/** A token count for usage fields: about four characters of JSON a token, at least one. */
export function estimateTokens(value: unknown): number {
  return Math.max(1, Math.ceil(JSON.stringify(value ?? '').length / 4));
}
