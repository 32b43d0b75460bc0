import pino, { type DestinationStream, type Logger } from 'pino';

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

export function createLogger(level: string, destination?: DestinationStream): Logger {
  return pino(
    { level, base: { pid: process.pid }, redact: { paths: REDACT_PATHS, censor: '[redacted]' } },
    destination,
  );
}
