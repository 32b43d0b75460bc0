import http from 'node:http';
import { resolvePaths } from '../core/home.js';

/**
 * Talks to the running daemon over its unix socket (no token needed: the socket's 0600 mode is the access control).
 * Answers the envelope's data, or exits with the daemon's error message.
 */
export async function callDaemon<T>(method: string, path: string, body?: unknown, timeoutMs?: number): Promise<T> {
  const socketPath = resolvePaths().socketFile;
  const payload = body === undefined ? undefined : JSON.stringify(body);
  const res = await new Promise<{ status: number; text: string }>((resolve, reject) => {
    const req = http.request(
      {
        socketPath,
        method,
        path,
        headers: payload ? { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } : {},
        ...(timeoutMs ? { timeout: timeoutMs } : {}),
      },
      (r) => {
        let text = '';
        r.setEncoding('utf8');
        r.on('data', (c: string) => (text += c));
        r.on('end', () => resolve({ status: r.statusCode ?? 0, text }));
      },
    );
    req.on('error', (err: NodeJS.ErrnoException) =>
      reject(
        err.code === 'ENOENT' || err.code === 'ECONNREFUSED'
          ? new Error(`the daemon is not running (no answer on ${socketPath}); start it with \`leo daemon\``)
          : err,
      ),
    );
    req.on('timeout', () => req.destroy(new Error(`the daemon did not answer within ${timeoutMs} ms`)));
    if (payload) req.write(payload);
    req.end();
  });
  let parsed: { ok: boolean; data?: T; error?: string };
  try {
    parsed = JSON.parse(res.text);
  } catch {
    throw new Error(`unexpected answer from the daemon (HTTP ${res.status})`);
  }
  if (!parsed.ok) throw new Error(parsed.error ?? `HTTP ${res.status}`);
  return parsed.data as T;
}
