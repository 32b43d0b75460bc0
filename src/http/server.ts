import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import Fastify, {
  LogController,
  type FastifyError,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
} from 'fastify';
import type { Logger } from 'pino';
import type { Principal } from '../wire/token-kinds.js';
import { decideAccess, type RouteAccess } from './access.js';
import type { ConnectionCap } from './connection-cap.js';
import { holderOf } from './connection-choice.js';
import { LeoError } from '../core/leo-error.js';
import { errorEnvelope } from './envelope.js';
import { checkHostAndOrigin } from './host-gate.js';
import { jsonBodyText } from './json-body.js';
import { installOpenApi } from './openapi.js';
import type { TlsPair } from './tls-files.js';
import { validatorCompiler } from './validate.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    access?: RouteAccess;
  }
  interface FastifyRequest {
    /** Set by the access hook before any handler runs; null only on unmatched URLs. */
    principal: Principal | null;
  }
}

export interface ServerOptions {
  logger: Logger;
  bodyLimit: number;
  /** Read per request so a config reload changes the allowed hosts without a restart. */
  allowedHosts(): readonly string[];
  identify(token: string): Principal | null;
  onResponse?(route: string, method: string, status: number): void;
  /** Time allowed to receive a whole request, headers and body; a request still arriving after it gets 408. */
  requestTimeoutMs: number;
  /** Bounds the TCP listener's connections; the unix socket has no cap, so the CLI still works when TCP is full. */
  connections: ConnectionCap;
  /** Makes the TCP listener serve HTTPS with this pair (web.tls); the unix socket stays plain. */
  tls?: TlsPair;
}

/** Headers come first and are small: a client that takes longer than this to send them is holding a socket open. */
const HEADERS_TIMEOUT_MS = 20_000;

/** One registered route as the table records it: what the access matrix and the fuzz suites enumerate. */
export interface RouteEntry {
  method: string;
  url: string;
  access: RouteAccess;
  /** The route's own body limit, when it sets one; otherwise the server's. */
  bodyLimit?: number;
  websocket?: boolean;
}

export interface LeoServer {
  app: FastifyInstance;
  /** Every route registered so far, in registration order (HEAD twins of GET routes included). */
  routes: readonly RouteEntry[];
  /** The listener that serves unix-socket connections; fastify itself owns the TCP one. */
  socketServer: http.Server;
  listen(tcp: { host: string; port: number }, socketPath: string): Promise<{ port: number }>;
  /** Serves another certificate to new TLS connections (a no-op without web.tls). */
  setCertificate(pair: TlsPair): void;
}

/**
 * One fastify instance, one route table, two listeners: TCP (host-gated, bearer tokens) and a 0600 unix socket
 * (no token). Connections that arrive on the socket server are remembered so every hook can tell the two apart.
 */
export function createServer(opts: ServerOptions): LeoServer {
  const socketConnections = new WeakSet<Socket>();
  let socketServer!: http.Server;
  let tcpServer!: http.Server | https.Server;
  // Fastify applies its own timeout options only to servers it creates; with a serverFactory they are set here. Only
  // the request's arrival is timed: SSE streams and held-open long polls have received their whole request.
  const headersTimeout = Math.min(HEADERS_TIMEOUT_MS, opts.requestTimeoutMs);
  const serverOptions: http.ServerOptions = {
    requestTimeout: opts.requestTimeoutMs,
    headersTimeout,
    // How often node looks for expired requests; by default every 30 s, which would stretch a short timeout.
    connectionsCheckingInterval: Math.min(30_000, Math.max(100, Math.floor(headersTimeout / 4))),
  };
  // Fastify's generics would carry pino's Logger type into every plugin signature; the base logger type suffices.
  const app = Fastify({
    loggerInstance: opts.logger,
    logController: new DebugRequestLog(),
    bodyLimit: opts.bodyLimit,
    forceCloseConnections: true,
    return503OnClosing: true,
    // The TCP server gets this from fastify; the socket server, which fastify does not know, gets it below.
    clientErrorHandler: answerClientError,
    // Router errors (a malformed %-escape, an over-long path parameter) happen before any hook runs, so the Host/Origin
    // gate is applied here too: otherwise a rebinding page could tell Leo's 400/414 from a refusal.
    frameworkErrors: (err, request, reply) => {
      if (refuseForeignHost(request as FastifyRequest, reply as FastifyReply)) return;
      const status = err.statusCode ?? 400;
      (reply as FastifyReply)
        .code(status)
        .send({ ok: false, error: err.message, code: status === 414 ? 'param_too_long' : 'bad_url' });
    },
    serverFactory(handler) {
      socketServer = http.createServer(serverOptions, handler);
      socketServer.on('connection', (s: Socket) => socketConnections.add(s));
      socketServer.on('clientError', answerClientError);
      tcpServer = opts.tls
        ? https.createServer({ ...serverOptions, ...opts.tls, handshakeTimeout: headersTimeout }, handler)
        : http.createServer(serverOptions, handler);
      // The cap counts the accepted TCP socket, over TLS before its handshake: a connection that never completes one
      // holds a descriptor all the same. A handshake gets no longer than request headers do.
      tcpServer.on('connection', (s: Socket) => {
        if (opts.connections.admit(s)) return;
        if (opts.tls) s.destroy();
        else writeRawError(s, 503, 'too many open connections: try again shortly', 'too_many_connections');
      });
      return tcpServer;
    },
  }) as unknown as FastifyInstance;

  // Fastify's own JSON parser, behind the checks it lacks (json-body.ts). Its text/plain parser goes: a browser sends
  // text/plain cross-site without a preflight, so a JSON route taking it would rest on the Origin gate alone; it is a
  // 415 unsupported_media_type instead. The one route that takes any body (uploads) brings its own parser.
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser(['application/json', 'text/plain']);
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    const checked = jsonBodyText(body as Buffer);
    if (!checked.ok) return done(new LeoError(400, checked.error, 'bad_json'), undefined);
    // The default parser answers through done; typed as maybe returning a promise, it returns nothing.
    void parseJson(request, checked.text, done);
  });

  app.decorateRequest('principal', null);

  /** The Host/Origin gate of the TCP listener: answers 403 forbidden_host (true) or lets the request on (false). */
  function refuseForeignHost(request: FastifyRequest, reply: FastifyReply): boolean {
    if (socketConnections.has(request.raw.socket)) return false;
    const refused = checkHostAndOrigin(request.headers.host, request.headers.origin, opts.allowedHosts());
    if (!refused) return false;
    refuse(request, reply, 403, { ok: false, error: refused, code: 'forbidden_host' });
    return true;
  }

  /**
   * A refusal on TCP ends its connection once sent: the caller's body (trickled, or huge) is not waited for, and a
   * connection without a valid token does not stay open to try another.
   */
  function refuse(request: FastifyRequest, reply: FastifyReply, status: number, body: object): void {
    endUpgradeAfterReply(request, reply);
    if (!socketConnections.has(request.raw.socket)) reply.header('connection', 'close');
    reply.code(status).send(body);
  }

  const routes: RouteEntry[] = [];
  app.addHook('onRoute', (route) => {
    const access = route.config?.access;
    if (!access) throw new Error(`route ${route.method} ${route.url} declares no access rule`);
    for (const method of [route.method].flat())
      routes.push({
        method,
        url: route.url,
        access,
        ...(route.bodyLimit !== undefined ? { bodyLimit: route.bodyLimit } : {}),
        ...(route.websocket || route.wsHandler ? { websocket: true } : {}),
      });
  });
  app.setValidatorCompiler(validatorCompiler);
  installOpenApi(app);

  app.addHook('onRequest', async (request, reply) => {
    if (refuseForeignHost(request, reply)) return reply;
    const viaSocket = socketConnections.has(request.raw.socket);
    const access = request.routeOptions.config.access;
    // Unmatched URLs reach here too, with no access rule. They are answered now, before fastify would read their body
    // for the not-found handler: a body trickling into an unknown URL would otherwise hold the connection.
    if (!access) {
      refuse(request, reply, 404, notFoundBody(request.method, request.url));
      return reply;
    }
    const decision = decideAccess({
      viaSocket,
      access,
      authorization: request.headers.authorization,
      identify: opts.identify,
    });
    if (!decision.allowed) {
      const body =
        decision.status === 404
          ? notFoundBody(request.method, request.url)
          : {
              ok: false,
              error: decision.error,
              code: decision.code,
              ...(decision.details ? { details: decision.details } : {}),
            };
      refuse(request, reply, decision.status, body);
      return reply;
    }
    request.principal = decision.principal;
    if (viaSocket) return;
    const connection = acceptedSocket(request.raw.socket);
    if (!opts.connections.begin(connection, holderOf(decision.principal))) {
      refuse(request, reply, 429, {
        ok: false,
        error: 'this token already holds its share of connections, all busy: finish a request first',
        code: 'too_many_connections',
        details: { scope: 'token', limit: opts.connections.readout().maxPerToken },
      });
      return reply;
    }
    reply.raw.once('close', () => opts.connections.finished(connection));
  });

  // Any answer given before the request's body has all arrived (a refusal, an early 413) ends the connection: node
  // would otherwise read and discard the rest of the body, however slowly it came, for up to web.request_timeout.
  app.addHook('onSend', async (request, reply) => {
    if (!request.raw.complete) reply.header('connection', 'close');
  });

  if (opts.onResponse) {
    const count = opts.onResponse;
    app.addHook('onResponse', async (request, reply) => {
      count(request.routeOptions.url ?? 'unmatched', request.method, reply.statusCode);
    });
  }

  app.addHook('onClose', async () => {
    if (!socketServer.listening) return;
    const socketPath = socketServer.address() as string;
    await new Promise<void>((resolve) => {
      socketServer.close(() => resolve());
      socketServer.closeAllConnections();
    });
    fs.rmSync(socketPath, { force: true });
  });

  app.setNotFoundHandler((request, reply) => {
    reply.code(404).send(notFoundBody(request.method, request.url));
  });

  app.setErrorHandler((err: FastifyError | LeoError, request, reply) => {
    const known =
      err instanceof LeoError ? err : mapFastifyError(err, request.routeOptions.bodyLimit ?? opts.bodyLimit);
    if (known) {
      if (known.retryAfterS !== undefined) reply.header('retry-after', String(known.retryAfterS));
      const envelope = errorEnvelope(known);
      // Fastify stamps its own code on a validator's error that has none: parseInput's 400 answers without one.
      if ((err as FastifyError).validationContext && envelope.code === 'FST_ERR_VALIDATION') delete envelope.code;
      return reply.code(known.statusCode).send(envelope);
    }
    // A caller gone mid-request (an upload cut off by its token's revocation, a phone losing its signal) leaves
    // nobody to answer and is no fault of the route's.
    if (request.raw.socket?.destroyed) {
      request.log.debug({ err: err.message, url: request.url }, 'request ended by its caller');
      return reply.code(400).send({ ok: false, error: 'request ended by its caller', code: 'aborted' });
    }
    request.log.error({ err, url: request.url }, 'unhandled error in route');
    return reply.code(500).send({ ok: false, error: 'internal error', code: 'internal' });
  });

  return {
    app,
    routes,
    get socketServer() {
      return socketServer;
    },
    async listen(tcp, socketPath) {
      await app.listen({ host: tcp.host, port: tcp.port });
      await listenOnSocket(socketServer, socketPath);
      const address = app.server.address();
      return { port: typeof address === 'object' && address ? address.port : tcp.port };
    },
    setCertificate(pair) {
      if (tcpServer instanceof https.Server) tcpServer.setSecureContext(pair);
    },
  };
}

/**
 * The TCP socket the listener accepted (and the cap counts) under a request's socket: over TLS requests arrive on the
 * TLSSocket node wraps around it, and keeps it as `_parent`.
 */
function acceptedSocket(socket: Socket): Socket {
  return (socket as Socket & { _parent?: Socket | null })._parent ?? socket;
}

/** Per-request lines go to debug: at the default level a busy daemon logs only what needs attention. */
class DebugRequestLog extends LogController {
  override incomingRequest(request: FastifyRequest): void {
    request.log.debug({ req: request }, 'incoming request');
  }
  override requestCompleted(error: Error | null | undefined, _request: FastifyRequest, reply: FastifyReply): void {
    reply.log.debug({ res: reply, err: error ?? undefined, ms: reply.elapsedTime }, 'request completed');
  }
}

/**
 * Requests node refuses before any route sees them (oversized headers, a request that took too long to arrive,
 * unparsable HTTP) still answer with the envelope, on both listeners.
 */
function answerClientError(err: NodeJS.ErrnoException, socket: Duplex): void {
  // Nothing to answer on a reset socket, nor over a response already under way (node's own test, on the response it
  // keeps on the socket). A request that times out after it was answered (refused at its headers while its body
  // still trickles in) is closed without a second answer.
  const inFlight = (socket as Duplex & { _httpMessage?: http.ServerResponse | null })._httpMessage;
  const answered =
    inFlight?.headersSent || (err.code === 'ERR_HTTP_REQUEST_TIMEOUT' && (socket as Socket).bytesWritten > 0);
  if (err.code === 'ECONNRESET' || !socket.writable || answered) {
    socket.destroy();
    return;
  }
  const [status, error, code] =
    err.code === 'HPE_HEADER_OVERFLOW'
      ? ([431, `request headers are larger than the ${http.maxHeaderSize}-byte limit`, 'headers_too_large'] as const)
      : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? ([408, 'the request did not arrive in time', 'request_timeout'] as const)
        : ([400, 'malformed HTTP request', 'bad_request'] as const);
  writeRawError(socket, status, error, code);
}

/** An envelope answer written straight to a socket no request object owns, which is then closed. */
function writeRawError(socket: Duplex, status: number, error: string, code: string): void {
  const body = JSON.stringify({ ok: false, error, code });
  socket.write(
    `HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
      `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
  socket.destroy();
}

function notFoundBody(method: string, url: string) {
  return { ok: false, error: `no route ${method} ${url.split('?')[0]}`, code: 'not_found' };
}

/** Fastify's own errors (body parsing, limits, content types) rewritten as envelopes that say what is wrong. */
function mapFastifyError(err: FastifyError, bodyLimit: number): LeoError | null {
  switch (err.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new LeoError(
        413,
        `request body is larger than the ${bodyLimit}-byte limit of this route`,
        'body_too_large',
      );
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new LeoError(400, `malformed JSON body: ${err.message}`, 'bad_json');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new LeoError(415, `unsupported Content-Type: ${err.message}`, 'unsupported_media_type');
    case 'FST_ERR_CTP_INVALID_CONTENT_LENGTH':
      return new LeoError(400, 'Content-Length does not match the body', 'bad_length');
    default:
      break;
  }
  if (err instanceof SyntaxError || err.statusCode === 400)
    return new LeoError(400, `malformed request: ${err.message}`, 'bad_request');
  if (err.statusCode === 413) return new LeoError(413, err.message, 'body_too_large');
  if (err.statusCode === 415) return new LeoError(415, err.message, 'unsupported_media_type');
  return null;
}

/** Binds the unix socket, replacing a stale file but refusing to steal one a live daemon still answers on. */
async function listenOnSocket(server: http.Server, socketPath: string): Promise<void> {
  if (fs.existsSync(socketPath)) {
    const live = await new Promise<boolean>((resolve) => {
      const c = net.connect(socketPath);
      c.once('connect', () => {
        c.destroy();
        resolve(true);
      });
      c.once('error', () => resolve(false));
    });
    if (live) throw new Error(`another leo daemon is already listening on ${socketPath}`);
    fs.rmSync(socketPath, { force: true });
  }
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(socketPath, () => {
      server.off('error', reject);
      resolve();
    });
  });
  fs.chmodSync(socketPath, 0o600);
}

/**
 * A refused WebSocket upgrade is answered like any request, but its socket has left the HTTP server's keeping (the
 * upgrade detached it): unless it is ended after the reply, it stays open and `close()` waits on it forever.
 */
function endUpgradeAfterReply(request: FastifyRequest, reply: FastifyReply): void {
  if (!request.headers.upgrade) return;
  reply.raw.once('finish', () => request.raw.socket?.destroy());
}
