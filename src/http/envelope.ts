import { z } from 'zod';
import { LeoError } from '../core/leo-error.js';

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

/** A route's own refusal: a LeoError under the name and `status` the routes have always used. */
export class HttpError extends LeoError {
  constructor(
    readonly status: number,
    message: string,
    code?: string,
    details?: Record<string, unknown>,
  ) {
    super(status, message, code, details);
    this.name = 'HttpError';
  }
}

/** The envelope a LeoError answers with: its message, and its code and details when it has them. */
export function errorEnvelope(err: LeoError): ErrorEnvelope {
  return {
    ok: false,
    error: err.message,
    ...(err.code ? { code: err.code } : {}),
    ...(err.details ? { details: err.details } : {}),
  };
}
