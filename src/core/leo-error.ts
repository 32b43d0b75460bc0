/**
 * An error its caller should see, whatever the transport: fastify's convention (lib/errors.js), each error carrying
 * its `statusCode` and machine `code`. The HTTP error handler answers it as the error envelope (http/server.ts); the
 * MCP tools answer one under 500 as a tool error with its message (mcp/mcp-routes.ts). Services throw it or a domain
 * error extending it, never an HTTP type.
 */
export class LeoError extends Error {
  constructor(
    readonly statusCode: number,
    message: string,
    readonly code?: string,
    readonly details?: Record<string, unknown>,
    /** When a refusal for load should be retried: the HTTP answer's Retry-After. */
    readonly retryAfterS?: number,
  ) {
    super(message);
    this.name = 'LeoError';
  }
}

export const badRequest = (message: string, details?: Record<string, unknown>) =>
  new LeoError(400, message, undefined, details);
export const notFound = (message: string) => new LeoError(404, message);
export const conflict = (message: string) => new LeoError(409, message);
