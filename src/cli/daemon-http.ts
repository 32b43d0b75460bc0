import http from 'node:http';
import { Readable } from 'node:stream';

/**
 * How the CLI talks HTTP to the daemon. The daemon holds some requests for as long as a person takes — a permission
 * prompt up to chat.permission_timeout, a questions card up to chat.question_timeout, a leo_chat_ask up to 30 minutes
 * — and the stock clients cut them short: Node's global http agent gives every socket a 5-second idle timeout, and
 * fetch gives up after 5 minutes without headers. So each request here gets a connection of its own (agent: false)
 * and no deadline but the one its caller names.
 */

/** The daemon's unix socket and a path on it, or a URL on its TCP listener. */
export type DaemonTarget = { socketPath: string; path: string } | { url: string | URL };

export interface DaemonRequestOptions {
  method: string;
  headers?: Record<string, string>;
  body?: string | Uint8Array;
  /** A deadline on the whole exchange, the answer's body included; without one, wait as long as the daemon holds it. */
  timeoutMs?: number;
  signal?: AbortSignal;
}

/** Resolves with the response once its headers are in; a deadline keeps running until the body has ended. */
export function openDaemonRequest(target: DaemonTarget, o: DaemonRequestOptions): Promise<http.IncomingMessage> {
  return new Promise((resolve, reject) => {
    const headers = { ...o.headers };
    if (o.body !== undefined && !Object.keys(headers).some((h) => h.toLowerCase() === 'content-length'))
      headers['content-length'] = String(Buffer.byteLength(o.body));
    const options: http.RequestOptions = {
      method: o.method,
      headers,
      agent: false,
      ...(o.signal ? { signal: o.signal } : {}),
    };
    let response: http.IncomingMessage | undefined;
    const req =
      'socketPath' in target
        ? http.request({ ...options, socketPath: target.socketPath, path: target.path })
        : http.request(target.url, options);
    const timer =
      o.timeoutMs === undefined
        ? undefined
        : setTimeout(() => {
            const err = new Error(`the daemon did not answer within ${o.timeoutMs} ms`);
            if (response) response.destroy(err);
            else req.destroy(err);
          }, o.timeoutMs);
    req.on('response', (res) => {
      response = res;
      res.once('close', () => clearTimeout(timer));
      resolve(res);
    });
    req.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    req.end(o.body);
  });
}

/** The whole answer as text. */
export async function daemonRequest(
  target: DaemonTarget,
  o: DaemonRequestOptions,
): Promise<{ status: number; text: string }> {
  const res = await openDaemonRequest(target, o);
  let text = '';
  res.setEncoding('utf8');
  for await (const chunk of res) text += chunk as string;
  return { status: res.statusCode ?? 0, text };
}

const NULL_BODY_STATUS = new Set([101, 204, 205, 304]);

/** fetch over the same requests, for clients that take a fetch (the MCP SDK's transport); the body streams. */
export async function daemonFetch(input: string | URL, init?: RequestInit): Promise<Response> {
  const request = new Request(input, init);
  const body = request.body ? new Uint8Array(await request.arrayBuffer()) : undefined;
  const res = await openDaemonRequest(
    { url: request.url },
    {
      method: request.method,
      headers: Object.fromEntries(request.headers),
      ...(body ? { body } : {}),
      signal: request.signal,
    },
  );
  const headers = new Headers();
  for (const [name, value] of Object.entries(res.headers))
    for (const v of [value ?? []].flat()) headers.append(name, v);
  const status = res.statusCode ?? 500;
  const empty = NULL_BODY_STATUS.has(status) || request.method === 'HEAD';
  if (empty) res.resume();
  return new Response(empty ? null : (Readable.toWeb(res) as unknown as ReadableStream<Uint8Array>), {
    status,
    statusText: res.statusMessage ?? '',
    headers,
  });
}
