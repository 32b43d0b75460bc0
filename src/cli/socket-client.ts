import { resolvePaths } from '../core/home.js';
import { daemonRequest } from './daemon-http.js';

/**
 * Talks to the running daemon over its unix socket (no token needed: the socket's 0600 mode is the access control).
 * Answers the envelope's data, or exits with the daemon's error message. Without `timeoutMs` it waits as long as
 * the daemon takes (a spawn that clones a repository, a stop that waits for the harness to exit).
 */
export async function callDaemon<T>(method: string, path: string, body?: unknown, timeoutMs?: number): Promise<T> {
  const socketPath = resolvePaths().socketFile;
  const payload = body === undefined ? undefined : JSON.stringify(body);
  const res = await daemonRequest(
    { socketPath, path },
    {
      method,
      ...(payload === undefined ? {} : { headers: { 'content-type': 'application/json' }, body: payload }),
      ...(timeoutMs === undefined ? {} : { timeoutMs }),
    },
  ).catch((err: NodeJS.ErrnoException) => {
    throw err.code === 'ENOENT' || err.code === 'ECONNREFUSED'
      ? new Error(`the daemon is not running (no answer on ${socketPath}); start it with \`leo daemon\``)
      : err;
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
