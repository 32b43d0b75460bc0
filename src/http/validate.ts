import type { FastifySchemaCompiler } from 'fastify';
import type { z } from 'zod';
import { badRequest } from '../core/leo-error.js';

type Part = 'body' | 'query' | 'params';

/**
 * Parses a request part with its zod schema. A failure is a 400 whose message names the field, e.g.
 * `body.name: name must not be empty`, and whose details carry the field path for clients.
 */
export function parseInput<S extends z.ZodType>(schema: S, value: unknown, part: Part): z.infer<S> {
  const result = schema.safeParse(value === undefined && part === 'body' ? null : value);
  if (result.success) return result.data;
  const issue = result.error.issues[0]!;
  const field = issue.path.length ? issue.path.join('.') : null;
  const where = field ? `${part}.${field}` : part;
  const message =
    value == null && part === 'body' ? 'request body is required (a JSON object)' : `${where}: ${issue.message}`;
  throw badRequest(message, { field: field ?? part });
}

const PARTS: Record<string, Part> = { body: 'body', querystring: 'query', params: 'params' };

/**
 * Fastify's validator compiler: the zod schemas a route declares for its body, params and querystring validate the
 * request before its handler runs, with parseInput's 400, and the handler gets the parsed values (defaults and
 * coercions applied). A route schema is thus the one statement of what the route takes.
 */
export const validatorCompiler: FastifySchemaCompiler<z.ZodType> = ({ schema, httpPart, method, url }) => {
  const part = PARTS[httpPart ?? ''];
  if (!part) throw new Error(`${method} ${url}: Leo validates body, params and querystring, not ${httpPart}`);
  return (value) => {
    try {
      return { value: parseInput(schema, value, part) };
    } catch (error) {
      return { error: error as Error };
    }
  };
};

/** For a route that validates its input itself, with its own refusals: its schema documents it and checks nothing. */
export const selfValidated: FastifySchemaCompiler<unknown> = () => (value) => ({ value });
