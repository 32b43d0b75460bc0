import http from 'node:http';
import type { Target } from '../helpers/http.js';

export interface RawResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
}

/**
 * One request over a real socket, given as bytes: no client-side JSON encoding, so bodies the helpers would refuse to
 * build (invalid UTF-8, truncated JSON) reach the daemon as written. A streaming answer (SSE) resolves at its headers,
 * since it never ends; `timeoutMs` bounds anything else that would hang.
 */
export function send(
  target: Target,
  req: {
    method: string;
    path: string;
    headers?: Record<string, string>;
    body?: Buffer | string;
    /** Sends the body in pieces with no Content-Length, as a streaming client does. */
    chunked?: boolean;
    timeoutMs?: number;
  },
): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    let answered = false;
    const declared = req.body !== undefined && !req.chunked;
    const r = http.request(
      {
        method: req.method,
        path: req.path,
        // Set even for GET and DELETE, which node would otherwise send without one, leaving the body to be misread
        // as the next request on the connection.
        headers: {
          ...(declared ? { 'content-length': String(Buffer.byteLength(req.body!)) } : {}),
          ...(req.chunked ? { 'transfer-encoding': 'chunked' } : {}),
          ...req.headers,
        },
        agent: false,
        ...(target.socketPath ? { socketPath: target.socketPath } : { host: '127.0.0.1', port: target.port }),
      },
      (res) => {
        answered = true;
        if (String(res.headers['content-type'] ?? '').startsWith('text/event-stream')) {
          res.destroy();
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text: '' });
          return;
        }
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }),
        );
        res.on('error', reject);
      },
    );
    r.setTimeout(req.timeoutMs ?? 10_000, () =>
      r.destroy(new Error(`no answer to ${req.method} ${req.path} within ${req.timeoutMs ?? 10_000} ms`)),
    );
    // A server that answers early (413) and closes may reset a request still being written: the answer stands.
    r.on('error', (err) => {
      if (!answered) reject(err);
    });
    if (req.chunked && req.body !== undefined) {
      const body = Buffer.from(req.body);
      for (let i = 0; i < body.length; i += 16 * 1024) r.write(body.subarray(i, i + 16 * 1024));
      r.end();
    } else r.end(req.body);
  });
}

/** Percent-encodes every byte outside the unreserved set, so any string (lone surrogates too) is a legal path part. */
export function percentEncode(s: string): string {
  let out = '';
  for (const byte of Buffer.from(s, 'utf8'))
    out += /[A-Za-z0-9\-._~]/.test(String.fromCharCode(byte))
      ? String.fromCharCode(byte)
      : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  return out;
}

/** As written where the request line allows it (`..`, `/`, `%2e` stay literal); only bytes HTTP forbids are encoded. */
export function literalPath(s: string): string {
  let out = '';
  for (const ch of s) out += /^[\x21-\x7e]$/.test(ch) ? ch : percentEncode(ch);
  return out;
}
