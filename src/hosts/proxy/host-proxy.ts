import { Readable } from 'node:stream';
import type { ReadableStream } from 'node:stream/web';
import type { FastifyInstance, FastifyReply, FastifyRequest, preValidationAsyncHookHandler } from 'fastify';
import { HostUnreachableError, type HostAddress, type HostClient } from '../host-client.js';
import { forwardOf, hostUnreachable, renamedAnswer, ruleFor, unknownHost, type ProxyRule } from './proxy-rules.js';

export interface HostProxyDeps {
  /** client.hosts as leo.yaml says now: name → URL (and a LAN host's certificate pin). */
  hosts(): Record<string, HostAddress>;
  /** The peer token this hub holds for a host, or null. */
  token(host: string): string | null;
  connect(url: string, pin: string | undefined): HostClient;
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
    if (!rule) return;
    const own = route.preValidation;
    route.preValidation = [...(own === undefined ? [] : [own].flat()), proxyStep(rule, deps)];
  });
}

function proxyStep(rule: ProxyRule, deps: HostProxyDeps): preValidationAsyncHookHandler {
  return async (req, reply) => {
    const forward = forwardOf(rule, {
      url: req.routeOptions.url ?? '',
      params: req.params as Record<string, string>,
      query: req.url.split('?')[1] ?? '',
      body: req.body,
    });
    if (!forward) return;
    const { host } = forward;
    const entry = deps.hosts()[host];
    if (!entry) throw unknownHost(host);
    const token = deps.token(host);
    if (!token)
      throw hostUnreachable(host, 'this hub holds no peer token for it (`leo host remove`, then add it again)');
    const gone = new AbortController();
    reply.raw.once('close', () => gone.abort());
    let answer;
    try {
      answer = await deps.connect(entry.url, entry.pin).forward(token, {
        method: req.method,
        path: forward.path,
        headers: requestHeaders(req),
        ...bodyOf(req, forward.body),
        signal: gone.signal,
      });
    } catch (err) {
      if (err instanceof HostUnreachableError) throw hostUnreachable(host, err.why);
      throw err;
    }
    reply.code(answer.status);
    for (const name of ANSWER_HEADERS) {
      const value = answer.headers.get(name);
      if (value !== null) reply.header(name, value);
    }
    if (!answer.body) return reply.send();
    if (!answer.headers.get('content-type')?.startsWith('application/json'))
      return reply.send(Readable.fromWeb(answer.body as ReadableStream<Uint8Array>));
    const text = await new Response(answer.body).text();
    return sendJson(reply, text, (json) => renamedAnswer(rule, json, host));
  };
}

function requestHeaders(req: FastifyRequest): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const name of REQUEST_HEADERS) {
    const value = req.headers[name];
    if (typeof value === 'string') headers[name] = value;
  }
  return headers;
}

/** The JSON body as parsed (re-sent as JSON, the host's name taken out for a spawn), or an upload's stream as is. */
function bodyOf(req: FastifyRequest, replaced: object | undefined): { body?: string | Readable } {
  const body = replaced ?? req.body;
  if (body === undefined) return {};
  if (body instanceof Readable) return { body };
  return { body: JSON.stringify(body) };
}

/** A JSON answer renamed; a body that does not parse is the host's to explain, passed on unread. */
function sendJson(reply: FastifyReply, text: string, rename: (json: unknown) => unknown): FastifyReply {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return reply.send(text);
  }
  return reply.send(rename(json));
}
