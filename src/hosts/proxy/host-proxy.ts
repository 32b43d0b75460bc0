import { Readable } from 'node:stream';
import type { ReadableStream } from 'node:stream/web';
import type { FastifyInstance, FastifyReply, FastifyRequest, preValidationAsyncHookHandler } from 'fastify';
import { parseAddress, type ParsedAddress } from '../../wire/agent-address.js';
import { HostUnreachableError, type HostAddress, type HostClient } from '../host-client.js';
import { SENDER_HEADER, senderHeaderOf } from '../../wire/host.js';
import { SseRename } from './sse-rename.js';
import { forwardOf, hostUnreachable, renamedAnswer, ruleFor, unknownHost, type ProxyRule } from './proxy-rules.js';

export interface HostProxyDeps {
  /** client.hosts as leo.yaml says now: name → URL (and a LAN host's certificate pin). */
  hosts(): Record<string, HostAddress>;
  /** The peer token this hub holds for a host, or null. */
  token(host: string): string | null;
  connect(url: string, pin: string | undefined): HostClient;
  /** Where a send to `address` goes when a move left a dormant record there (src/hosts/move/forwarding.ts); else null. */
  moved(address: ParsedAddress): ParsedAddress | null;
}

/** What of the caller's request the host needs to read it; its Authorization is the hub's, never passed on. */
const REQUEST_HEADERS = ['content-type', 'accept'];
/** What of the host's answer the caller needs: how to read it, and what the host said of it. */
const ANSWER_HEADERS = [
  'content-type',
  'content-disposition',
  'x-content-type-options',
  'cache-control',
  'retry-after',
];
/** How long a JSON answer may take to arrive whole once its head has (a page of 500 messages takes milliseconds). */
const JSON_BODY_MS = 30_000;

/**
 * Gives every proxied route (proxy-rules.ts) a preValidation step that answers a request for another machine's agent
 * from that machine. It runs after the hub's own access check (the caller's token and scope, with `name@host` as the
 * agent) and after the route's own earlier steps (spawn's env refusal for devices), and before validation, which
 * refuses `@` in an agent's name: each route states its schema once, for its own agents.
 */
export function installHostProxy(app: FastifyInstance, deps: HostProxyDeps): void {
  app.addHook('onRoute', (route) => {
    if (Array.isArray(route.method)) return;
    const rule = ruleFor(route.method, route.url);
    if (!rule || rule.where.in === 'hub') return;
    const own = route.preValidation;
    route.preValidation = [...(own === undefined ? [] : [own].flat()), proxyStep(rule, deps)];
  });
}

function proxyStep(rule: ProxyRule, deps: HostProxyDeps): preValidationAsyncHookHandler {
  return async (req, reply) => {
    const incoming = {
      url: req.routeOptions.url ?? '',
      params: req.params as Record<string, string>,
      query: req.url.split('?')[1] ?? '',
      body: req.body,
    };
    let forward = forwardOf(rule, incoming, deps.moved);
    if (!forward) return;
    const gone = new AbortController();
    reply.raw.once('close', () => gone.abort());
    const seen = new Set<string>();
    let answer: Awaited<ReturnType<HostClient['forward']>>;
    let json: string | null;
    for (;;) {
      const host: string = forward.host;
      seen.add(host);
      answer = await sendTo(deps, host, {
        method: req.method,
        path: forward.path,
        headers: requestHeaders(req),
        ...bodyOf(req, forward.body),
        signal: gone.signal,
        ...(rule.waits ? { waits: true } : {}),
      });
      json = answer.body && isJson(answer.headers) ? await wholeText(answer.body, host, gone) : null;
      // The host marked the agent moved after this hub's last look at it: the send goes on to where the host says,
      // as it would have had the hub known (nothing was stored there), instead of a 409 the client cannot act on.
      const onward: ParsedAddress | null =
        rule.follows && !(req.body instanceof Readable) ? movedOnward(answer.status, json) : null;
      const next: ParsedAddress | null =
        onward?.host && !seen.has(onward.host) && deps.hosts()[onward.host] ? onward : null;
      if (!next) break;
      forward = forwardOf(rule, incoming, (): ParsedAddress => next)!;
    }
    const { host } = forward;
    const headers: Record<string, string> = {};
    for (const name of ANSWER_HEADERS) {
      const value = answer.headers.get(name);
      if (value !== null) headers[name] = value;
    }
    if (answer.body && isEventStream(answer.headers)) {
      const chunks = Readable.fromWeb(answer.body as ReadableStream<Uint8Array>);
      const { frames } = rule;
      const passed = frames
        ? Readable.from(renamedFrames(chunks, (event, data) => frames(event, data as never, host)))
        : chunks;
      return passStream(reply, answer.status, headers, passed);
    }
    reply.code(answer.status).headers(headers);
    if (json !== null) return reply.send(renamed(json, (parsed) => renamedAnswer(rule, parsed, host)));
    if (!answer.body) return reply.send();
    return reply.send(Readable.fromWeb(answer.body as ReadableStream<Uint8Array>));
  };
}

/** The hub's request to `host` for one proxied request: a host it cannot reach is 503 host_unreachable. */
async function sendTo(
  deps: HostProxyDeps,
  host: string,
  request: Parameters<HostClient['forward']>[1],
): ReturnType<HostClient['forward']> {
  const entry = deps.hosts()[host];
  if (!entry) throw unknownHost(host);
  const token = deps.token(host);
  if (!token) throw hostUnreachable(host, 'this hub holds no peer token for it (`leo host remove`, then add it again)');
  try {
    return await deps.connect(entry.url, entry.pin).forward(token, request);
  } catch (err) {
    if (err instanceof HostUnreachableError) throw hostUnreachable(host, err.why);
    throw err;
  }
}

/** The address a host's 409 agent_moved names (`name@host`), or null for any other answer. */
function movedOnward(status: number, json: string | null): ParsedAddress | null {
  if (status !== 409 || json === null) return null;
  try {
    const parsed = JSON.parse(json) as { code?: unknown; details?: { address?: unknown } };
    if (parsed.code !== 'agent_moved' || typeof parsed.details?.address !== 'string') return null;
    const address = parseAddress(parsed.details.address);
    return address?.host ? address : null;
  } catch {
    return null;
  }
}

const isJson = (headers: Headers) => headers.get('content-type')?.startsWith('application/json') ?? false;
const isEventStream = (headers: Headers) => headers.get('content-type')?.startsWith('text/event-stream') ?? false;

/**
 * A host's event stream (the terminal's) passed on as this daemon's own streams are sent (open-sse.ts): the head at
 * once, since a stream with nothing to say yet must still open (fastify would hold it until the first frame), and
 * ended as the host's ends. The caller leaving aborts the host's request, which ends this quietly: nobody is left to
 * answer, where fastify would try to send an error as the stream's content type.
 */
function passStream(
  reply: FastifyReply,
  status: number,
  headers: Record<string, string>,
  frames: Readable,
): FastifyReply {
  reply.hijack();
  const raw = reply.raw;
  raw.writeHead(status, { ...headers, 'x-accel-buffering': 'no' });
  raw.flushHeaders();
  // The host broke off, or the caller left: the caller's stream ends too (a live one reconnects).
  frames.on('error', () => raw.destroy());
  frames.pipe(raw);
  return reply;
}

/** A host's event stream with each frame's data renamed as it passes (sse-rename.ts); a frame it cannot rename goes on. */
async function* renamedFrames(chunks: AsyncIterable<Uint8Array>, rename: (event: string, data: unknown) => unknown) {
  const frames = new SseRename((event, data) => {
    try {
      return rename(event, data);
    } catch {
      return data;
    }
  });
  const decoder = new TextDecoder();
  for await (const chunk of chunks) {
    const text = frames.feed(decoder.decode(chunk, { stream: true }));
    if (text) yield text;
  }
  const rest = frames.feed(decoder.decode()) + frames.end();
  if (rest) yield rest;
}

/**
 * A JSON answer read whole, to be renamed: within JSON_BODY_MS of its head, or the host is as good as unreachable
 * (a host that sends half an answer and hangs holds nobody's request for long).
 */
async function wholeText(body: ReadableStream<Uint8Array>, host: string, gone: AbortController): Promise<string> {
  const deadline = setTimeout(() => gone.abort(new DOMException('no whole answer', 'TimeoutError')), JSON_BODY_MS);
  try {
    return await new Response(body).text();
  } catch (err) {
    throw hostUnreachable(host, `its answer broke off (${(err as Error).message})`);
  } finally {
    clearTimeout(deadline);
  }
}

/**
 * What the host reads of the caller: how the body is written, and for an API client's post, whom it posted for (the
 * host keeps `client:<name>` on the message and applies a client's rules). An owner's post stays the owner's there.
 */
function requestHeaders(req: FastifyRequest): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const name of REQUEST_HEADERS) {
    const value = req.headers[name];
    if (typeof value === 'string') headers[name] = value;
  }
  const caller = req.principal;
  if (caller?.kind === 'client') headers[SENDER_HEADER] = senderHeaderOf(caller.name);
  return headers;
}

/** The JSON body as parsed (re-sent as JSON, the host's name taken out for a spawn), or an upload's stream as is. */
function bodyOf(req: FastifyRequest, replaced: object | undefined): { body?: string | Readable } {
  const body = replaced ?? req.body;
  if (body === undefined) return {};
  if (body instanceof Readable) return { body };
  return { body: JSON.stringify(body) };
}

/** A JSON answer renamed; a body that does not parse, or data of a shape this hub does not know, goes on as it came. */
function renamed(text: string, rename: (json: unknown) => unknown): unknown {
  try {
    return rename(JSON.parse(text));
  } catch {
    return text;
  }
}
