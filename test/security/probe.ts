import http from 'node:http';
import type { Target } from '../helpers/http.js';

export interface ProbeResult {
  status: number;
  /** The envelope's code, when the body was a JSON error envelope. */
  code?: string;
  error?: string;
  contentType: string;
  /** The body as text; empty for streams (cut after their headers), HEAD and upgrades. */
  text: string;
}

export interface ProbeOptions {
  token?: string;
  headers?: Record<string, string>;
  /** Sent as JSON. */
  body?: unknown;
  /** Ask for a WebSocket upgrade: a 101 answer resolves with status 101 and the socket is closed at once. */
  upgrade?: boolean;
  timeoutMs?: number;
}

/**
 * One request to either listener that never hangs on a route that streams: an SSE answer resolves as soon as its
 * headers arrive, a WebSocket upgrade as soon as it is accepted, and the connection is then destroyed so the daemon
 * drops its subscriber. A fresh connection per request (no keep-alive) keeps each one independent.
 */
export function probe(target: Target, method: string, path: string, opts: ProbeOptions = {}): Promise<ProbeResult> {
  const headers: Record<string, string> = { ...(opts.headers ?? {}) };
  if (opts.token !== undefined) headers.authorization = `Bearer ${opts.token}`;
  if (opts.upgrade) {
    headers.connection = 'Upgrade';
    headers.upgrade = 'websocket';
    headers['sec-websocket-version'] = '13';
    headers['sec-websocket-key'] = 'dGhlIHNhbXBsZSBub25jZQ==';
  }
  const payload = opts.body === undefined ? undefined : JSON.stringify(opts.body);
  if (payload !== undefined) headers['content-type'] ??= 'application/json';
  return new Promise((resolve, reject) => {
    const req = http.request({
      method,
      path,
      headers,
      agent: false,
      ...(target.socketPath ? { socketPath: target.socketPath } : { host: '127.0.0.1', port: target.port }),
    });
    const timer = setTimeout(() => {
      req.destroy();
      reject(new Error(`${method} ${path}: no answer within ${opts.timeoutMs ?? 5000} ms`));
    }, opts.timeoutMs ?? 5000);
    const done = (r: ProbeResult) => {
      clearTimeout(timer);
      resolve(r);
    };
    req.on('upgrade', (res, socket) => {
      socket.destroy();
      done({ status: res.statusCode ?? 0, contentType: '', text: '' });
    });
    req.on('response', (res) => {
      const contentType = String(res.headers['content-type'] ?? '');
      if (contentType.includes('text/event-stream')) {
        req.destroy();
        return done({ status: res.statusCode ?? 0, contentType, text: '' });
      }
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let json: { ok?: unknown; code?: unknown; error?: unknown } | undefined;
        try {
          json = JSON.parse(text);
        } catch {
          // not JSON: metrics text, a file, an empty 404 from the WebSocket plugin
        }
        const envelope = json && json.ok === false;
        done({
          status: res.statusCode ?? 0,
          contentType,
          text,
          ...(envelope && typeof json!.code === 'string' ? { code: json!.code } : {}),
          ...(envelope && typeof json!.error === 'string' ? { error: json!.error } : {}),
        });
      });
    });
    req.on('error', (err) => {
      clearTimeout(timer);
      reject(new Error(`${method} ${path}: ${err.message}`));
    });
    req.end(payload);
  });
}

/** Runs `jobs` with at most `limit` in flight, keeping their order in the results. */
export async function bounded<T>(limit: number, jobs: readonly (() => Promise<T>)[]): Promise<T[]> {
  const out = new Array<T>(jobs.length);
  let next = 0;
  const worker = async () => {
    while (next < jobs.length) {
      const i = next++;
      out[i] = await jobs[i]!();
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, jobs.length) }, worker));
  return out;
}
