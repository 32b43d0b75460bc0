import { z } from 'zod';

/** The {ok, data} / {ok: false, error, code?} envelope every JSON route answers with. */
export const ErrorEnvelope = z.object({
  ok: z.literal(false),
  error: z.string(),
  code: z.string().optional(),
  details: z.record(z.string(), z.unknown()).optional(),
});
export type ErrorEnvelope = z.infer<typeof ErrorEnvelope>;

export function ok<T>(data: T): { ok: true; data: T } {
  return { ok: true, data };
}

/** An error a route means to show the caller: its status, message and optional machine code reach the client. */
export class HttpError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly code?: string,
    readonly details?: Record<string, unknown>,
    /** Response headers the refusal needs (Retry-After). */
    readonly headers?: Record<string, string>,
  ) {
    super(message);
    this.name = 'HttpError';
  }

  toEnvelope(): ErrorEnvelope {
    return {
      ok: false,
      error: this.message,
      ...(this.code ? { code: this.code } : {}),
      ...(this.details ? { details: this.details } : {}),
    };
  }
}

export const badRequest = (message: string, details?: Record<string, unknown>) =>
  new HttpError(400, message, undefined, details);
export const notFound = (message: string) => new HttpError(404, message);
export const conflict = (message: string) => new HttpError(409, message);
