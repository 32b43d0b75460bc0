import type { z } from 'zod';
import { LeoError } from '../core/leo-error.js';
import { StateSnapshot } from '../wire/fleet.js';
import { HostInfo, Joined } from '../wire/host.js';

/**
 * What a hub asks of a host, over HTTP(S) to the URL the owner gave it. The one seam the hub's outgoing requests go
 * through, so tests and the later slices (the event follower, proxied actions) share it.
 */
export interface HostClient {
  /** `GET /api/v1/host` with the peer token, and how long the round trip took. */
  hostInfo(token: string, signal?: AbortSignal): Promise<{ info: HostInfo; rttMs: number }>;
  /** Redeems a join code for a peer token; `hub` is the name the hub's machine gives itself. */
  join(code: string, hub: string): Promise<Joined>;
  /** Asks the host to revoke the peer token the request carries. */
  revokeSelf(token: string): Promise<void>;
  /** `GET /api/v1/state`; `signal` (the caller's own deadline) replaces the client's timeout. */
  state(token: string, signal: AbortSignal): Promise<StateSnapshot>;
  /** A GET route's `data`, read as `answer` says, under the caller's own deadline: a list the hub merges with its own. */
  read<S extends z.ZodType>(token: string, path: string, answer: S, signal: AbortSignal): Promise<z.output<S>>;
  /** Opens `GET /api/v1/events`: the body, read until `signal` aborts it or the host ends it. */
  events(token: string, signal: AbortSignal): Promise<ReadableStream<Uint8Array>>;
  /**
   * One request passed on to the host with the peer token (an action on one of its agents, issue 31). The answer
   * comes back as the host gave it, its body unread: the deadline covers the answer's head only, so a download or a
   * stream lasts as long as it lasts, until `signal` ends it.
   */
  forward(token: string, req: ForwardRequest): Promise<ForwardedAnswer>;
}

export interface ForwardRequest {
  method: string;
  /** Path and query string on the host. */
  path: string;
  headers: Record<string, string>;
  /** A JSON text, or a stream passed through as it arrives (an upload). */
  body?: string | AsyncIterable<Uint8Array>;
  /** The caller went away: the host's request is ended too. */
  signal: AbortSignal;
  /** The host answers when an agent's turn ends: no deadline on the answer's head, the caller's signal alone. */
  waits?: boolean;
}

export interface ForwardedAnswer {
  status: number;
  headers: Headers;
  body: ReadableStream<Uint8Array> | null;
}

/** Where a hub reaches a host (`client.hosts.<name>`): its URL and, for its own TLS listener, its certificate's pin. */
export interface HostAddress {
  url: string;
  pin?: string;
}

/** The host did not answer (refused, timed out, not HTTP): nothing is known of what it would have said. */
export class HostUnreachableError extends LeoError {
  constructor(
    url: string,
    readonly why: string,
  ) {
    super(502, `the host at ${url} did not answer: ${why}`, 'host_unreachable');
  }
}

/** The host answered with an error; `hostCode` is its envelope's code. */
export class HostRefusedError extends LeoError {
  constructor(
    readonly hostStatus: number,
    readonly hostCode: string | undefined,
    message: string,
  ) {
    super(502, message, 'host_refused');
  }
}

/**
 * How long a proxied action may take to start answering: a spawn clones its repository before it answers. A host that
 * cannot be reached at all fails sooner, at undici's connect timeout (10 s).
 */
const FORWARD_HEAD_MS = 60_000;

/**
 * Node's fetch (undici), each request under its own deadline. A private or loopback URL is fine: hosts live there.
 * `pin`: every connection must present the certificate it names (pinned-agent.ts); without it, the usual TLS checks.
 */
const pinnedAgent = async (pin: string) => (await import('./pinned-agent.js')).pinnedAgent(pin);

export function fetchHostClient(baseUrl: string, o: { pin?: string; timeoutMs?: number } = {}): HostClient {
  const timeoutMs = o.timeoutMs ?? 5_000;
  // undici (1.9 MB of heap) is loaded only by a hub that follows a host over a pinned certificate.
  const dispatcher = o.pin ? pinnedAgent(o.pin) : undefined;
  /** The one way a request leaves for the host, so none can skip the pin. */
  const send = async (path: string, init: RequestInit) =>
    fetch(`${baseUrl}${path}`, { ...init, redirect: 'error', ...(dispatcher ? { dispatcher: await dispatcher } : {}) });
  const call = async <S extends z.ZodType>(
    method: string,
    path: string,
    opts: { token?: string; body?: unknown; answer?: S; signal?: AbortSignal },
  ): Promise<{ data: z.output<S> | undefined; rttMs: number }> => {
    const started = performance.now();
    let res: Response;
    let text: string;
    try {
      res = await send(path, {
        method,
        headers: {
          ...(opts.token ? { authorization: `Bearer ${opts.token}` } : {}),
          ...(opts.body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(opts.body === undefined ? {} : { body: JSON.stringify(opts.body) }),
        signal: opts.signal ?? AbortSignal.timeout(timeoutMs),
      });
      text = await res.text();
    } catch (err) {
      throw new HostUnreachableError(baseUrl, reason(err, timeoutMs));
    }
    const rttMs = Math.round(performance.now() - started);
    const data = envelopeData(`the host at ${baseUrl}`, path, res.status, text, opts.answer);
    return { data, rttMs };
  };
  return {
    async hostInfo(token, signal) {
      const deadline = AbortSignal.timeout(timeoutMs);
      const { data, rttMs } = await call('GET', '/api/v1/host', {
        token,
        answer: HostInfo,
        signal: signal ? AbortSignal.any([signal, deadline]) : deadline,
      });
      return { info: data!, rttMs };
    },
    async join(code, hub) {
      return (await call('POST', '/api/v1/host/join', { body: { code, hub }, answer: Joined })).data!;
    },
    async revokeSelf(token) {
      await call('DELETE', '/api/v1/host/peer', { token });
    },
    async state(token, signal) {
      return (await call('GET', '/api/v1/state', { token, answer: StateSnapshot, signal })).data!;
    },
    async read(token, path, answer, signal) {
      return (await call('GET', path, { token, answer, signal })).data!;
    },
    async events(token, signal) {
      let res: Response;
      try {
        res = await send('/api/v1/events', {
          headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' },
          signal,
        });
      } catch (err) {
        throw new HostUnreachableError(baseUrl, reason(err, timeoutMs));
      }
      if (!res.ok || !res.body) {
        await res.body?.cancel();
        throw new HostRefusedError(
          res.status,
          undefined,
          `the host at ${baseUrl} refused its events: HTTP ${res.status}`,
        );
      }
      return res.body;
    },
    async forward(token, req) {
      const head = new AbortController();
      const deadline = req.waits
        ? undefined
        : setTimeout(() => head.abort(new DOMException('no answer', 'TimeoutError')), FORWARD_HEAD_MS);
      try {
        const res = await send(req.path, {
          method: req.method,
          headers: { ...req.headers, authorization: `Bearer ${token}` },
          ...(req.body === undefined ? {} : { body: req.body as RequestInit['body'], duplex: 'half' }),
          signal: AbortSignal.any([head.signal, req.signal]),
        } as RequestInit);
        return { status: res.status, headers: res.headers, body: res.body };
      } catch (err) {
        throw new HostUnreachableError(baseUrl, reason(err, FORWARD_HEAD_MS));
      } finally {
        clearTimeout(deadline);
      }
    },
  };
}

/**
 * A host's answer to `path` read as Leo's envelope: its data as `answer` says (undefined without one), or a
 * HostRefusedError in `who`'s name for an error answer, a body that is not Leo's JSON, or data of another shape.
 */
export function envelopeData<S extends z.ZodType>(
  who: string,
  path: string,
  status: number,
  text: string,
  answer: S | undefined,
): z.output<S> | undefined {
  let envelope: { ok?: boolean; data?: unknown; error?: string; code?: string };
  try {
    envelope = JSON.parse(text) as typeof envelope;
  } catch {
    throw new HostRefusedError(status, undefined, `${who} answered HTTP ${status}, not Leo's JSON`);
  }
  if (status < 200 || status > 299 || envelope.ok === false)
    throw new HostRefusedError(
      status,
      envelope.code,
      `${who} answered HTTP ${status}: ${envelope.error ?? 'no reason given'}`,
    );
  if (!answer) return undefined;
  const parsed = answer.safeParse(envelope.data);
  if (!parsed.success)
    throw new HostRefusedError(status, undefined, `${who} answered ${path} in a shape this hub cannot read`);
  return parsed.data;
}

/** Why a fetch failed, in words: undici hides the system error (ECONNREFUSED…), or a pin's refusal, in `cause`. */
function reason(err: unknown, timeoutMs: number): string {
  const e = err as { name?: string; message?: string; cause?: { code?: string; message?: string } };
  if (e.name === 'TimeoutError' || e.name === 'AbortError') return `no answer within ${timeoutMs} ms`;
  return e.cause?.code ?? e.cause?.message ?? e.message ?? String(err);
}
