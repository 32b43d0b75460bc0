import http from 'node:http';

export interface Target {
  /** The TCP address: 127.0.0.1 unless given (a host of the netns bench is at its own). */
  host?: string;
  port?: number;
  socketPath?: string;
}

export interface Response {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  json: any;
}

/** A plain node:http client that reaches either listener, so tests exercise real sockets, not fastify.inject. */
export function request(
  target: Target,
  method: string,
  path: string,
  opts: {
    token?: string;
    headers?: Record<string, string>;
    body?: unknown;
    rawBody?: string | Buffer;
    /** Gives up (a rejection with code `ETIMEDOUT`) when the socket stays silent this long. */
    timeoutMs?: number;
  } = {},
): Promise<Response> {
  const headers: Record<string, string> = { ...(opts.headers ?? {}) };
  if (opts.token) headers.authorization = `Bearer ${opts.token}`;
  let payload: string | Buffer | undefined = opts.rawBody;
  if (opts.body !== undefined) {
    payload = JSON.stringify(opts.body);
    headers['content-type'] ??= 'application/json';
  }
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        method,
        path,
        headers,
        ...(target.socketPath
          ? { socketPath: target.socketPath }
          : { host: target.host ?? '127.0.0.1', port: target.port }),
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let json: unknown = undefined;
          try {
            json = JSON.parse(text);
          } catch {
            // not JSON (metrics, SSE); callers read text
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
        });
      },
    );
    req.on('error', reject);
    if (opts.timeoutMs)
      req.setTimeout(opts.timeoutMs, () =>
        req.destroy(Object.assign(new Error(`no answer within ${opts.timeoutMs} ms`), { code: 'ETIMEDOUT' })),
      );
    if (payload !== undefined) req.write(payload);
    req.end();
  });
}
