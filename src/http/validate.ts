import type { z } from 'zod';
import { badRequest } from './envelope.js';

/**
 * Parses a request part with its zod schema. A failure is a 400 whose message names the field, e.g.
 * `body.name: name must not be empty`, and whose details carry the field path for clients.
 */
export function parseInput<S extends z.ZodType>(
  schema: S,
  value: unknown,
  part: 'body' | 'query' | 'params',
): z.infer<S> {
  const result = schema.safeParse(value === undefined && part === 'body' ? null : value);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const field = issue.path.length ? issue.path.join('.') : null;
  const where = field ? `${part}.${field}` : part;
  const message =
    value == null && part === 'body' ? 'request body is required (a JSON object)' : `${where}: ${issue.message}`;
  throw badRequest(message, { field: field ?? part });
}
