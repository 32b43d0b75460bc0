import { z } from 'zod';

/**
 * The schemas the OpenAPI document names as components (`#/components/schemas/<id>`): the wire shapes clients share
 * across routes (Agent, Message...) and the SSE event payloads, which no route's response reaches. Kept apart from
 * zod's global registry so only what a module names here becomes a component. Pure (zod only): the wire schemas
 * Leo Web imports name themselves here.
 */
export const apiComponents = z.registry<{ id: string; description?: string }>();

/** Names a wire schema as a component of the document; returns it, so a module names a schema where it defines it. */
export function component<S extends z.ZodType>(id: string, schema: S, description?: string): S {
  apiComponents.add(schema, { id, ...(description ? { description } : {}) });
  return schema;
}
