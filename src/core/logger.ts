import { createRequire } from 'node:module';
import pino, { type DestinationStream, type Logger } from 'pino';
import type pinoPretty from 'pino-pretty';

export type { Logger };

/** Paths pino blanks in every log line: secrets must never reach a log file. */
export const REDACT_PATHS = [
  'req.headers.authorization',
  'headers.authorization',
  'authorization',
  'token',
  '*.token',
  'env',
  '*.env',
];

/** A query parameter whose name says it carries a credential. */
const SECRET_PARAM = /token|key|secret|auth|pass/i;
/** A value shaped like one of Leo's tokens, whatever the parameter is called. */
const LEO_TOKEN = /^leo_[a-z]+_/;
/** A Leo token anywhere in a URL, its underscores sent as they are or percent-encoded. */
const LEO_TOKEN_ANYWHERE = /leo(?:_|%5f)[a-z]+(?:_|%5f)[a-z0-9_%-]+/gi;

/**
 * A request URL fit for a log line: a query value is blanked when its parameter's name says it holds a credential or
 * the value looks like a Leo token. Leo never takes a token from the query string, so a client that sends one anyway
 * (a misconfigured dashboard, a copied `?token=` URL) is refused, and its token must not then sit in the log.
 */
export function redactUrl(url: string): string {
  // A token in a path segment, a `;param` or a value such as `Bearer%20leo_…` is blanked wherever it sits.
  return redactQuery(url).replace(LEO_TOKEN_ANYWHERE, '[redacted]');
}

function redactQuery(url: string): string {
  const q = url.indexOf('?');
  if (q < 0) return url;
  const query = url
    .slice(q + 1)
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      if (eq < 0) return pair;
      const [name, value] = [pair.slice(0, eq), pair.slice(eq + 1)];
      let decoded = value;
      try {
        decoded = decodeURIComponent(value);
      } catch {
        // a broken escape stays as sent; the name test still applies
      }
      return SECRET_PARAM.test(name) || LEO_TOKEN.test(decoded) ? `${name}=[redacted]` : pair;
    });
  return `${url.slice(0, q)}?${query.join('&')}`;
}

interface LoggedRequest {
  method?: string;
  url?: string;
  host?: string;
  ip?: string;
  socket?: { remotePort?: number };
}

/**
 * fastify's request serializer with the URL redacted; a logger instance's own serializers take precedence over
 * fastify's. `url` is also redacted wherever a line logs one on its own.
 */
const serializers = {
  // Anything that is not a request (no method) is left to the redaction paths.
  req: (req: LoggedRequest) =>
    typeof req?.method !== 'string'
      ? req
      : {
          method: req.method,
          url: typeof req.url === 'string' ? redactUrl(req.url) : req.url,
          host: req.host,
          remoteAddress: req.ip,
          remotePort: req.socket?.remotePort,
        },
  url: (url: unknown) => (typeof url === 'string' ? redactUrl(url) : url),
};

export function createLogger(level: string, destination?: DestinationStream): Logger {
  return pino(
    { level, base: { pid: process.pid }, redact: { paths: REDACT_PATHS, censor: '[redacted]' }, serializers },
    destination,
  );
}

/**
 * The daemon's logger: pino's JSON lines for whatever reads its output (the journal, a log file, a pipe), and
 * human-readable lines, coloured and with local times, when a person watches it in a terminal.
 */
export function createDaemonLogger(level: string, stdout: { isTTY?: boolean } = process.stdout): Logger {
  if (!stdout.isTTY) return createLogger(level);
  // Loaded only for a person's terminal: a daemon under a service manager or in a test never pays for its 40 modules.
  const pretty = createRequire(import.meta.url)('pino-pretty') as typeof pinoPretty;
  // sync: a line is on the terminal before the next one is formatted, as pino's own destination writes.
  return createLogger(
    level,
    pretty({ colorize: true, translateTime: 'SYS:HH:MM:ss.l', ignore: 'pid,hostname', sync: true }),
  );
}
