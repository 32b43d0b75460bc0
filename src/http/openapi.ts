import swagger from '@fastify/swagger';
import type { FastifyInstance, RouteOptions } from 'fastify';
import type { OpenAPIV3_1 } from 'openapi-types';
import { createJsonSchemaTransform, createJsonSchemaTransformObject } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { LEO_VERSION } from '../core/version.js';
import type { RouteAccess } from './access.js';
import { apiComponents } from '../wire/components.js';
import { ErrorEnvelope } from './envelope.js';

/** The success envelope around a route's data: `{ok: true, data}`. */
export const okOf = <S extends z.ZodType>(data: S) => z.object({ ok: z.literal(true), data });

/**
 * Puts the OpenAPI machinery on the app before any route exists. A route's request schemas validate (validate.ts);
 * its response schemas are documentation only: the serializer is plain JSON.stringify (what fastify does without a
 * schema), so declaring one changes no answer. The contract test holds answers and document together instead.
 */
export function installOpenApi(app: FastifyInstance): void {
  app.setSerializerCompiler(() => (data) => JSON.stringify(data));
  // Every route says who may call it and that its refusals are the error envelope, in the document as on the wire.
  app.addHook('onRoute', (route: RouteOptions) => {
    const access = route.config?.access;
    if (!access) return;
    // A copy: routes may share one schema object (the same stream on TCP and on the socket), each with its own access.
    const schema: Record<string, unknown> = {
      ...route.schema,
      security: access.tokens === 'public' || access.socketOnly ? [] : [{ bearer: [] }],
      'x-leo-access': accessLabel(access),
    };
    if (route.schema?.response)
      schema.response = { '4xx': ErrorEnvelope, '5xx': ErrorEnvelope, ...(route.schema.response as object) };
    route.schema = schema;
  });
  void app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Leo',
        version: LEO_VERSION,
        description:
          'The Leo daemon’s HTTP API (docs/API.md). Every JSON route answers {ok: true, data} or the error ' +
          'envelope; GET /api/v1/events is Server-Sent Events, whose payloads are the components named Event*.',
      },
      components: {
        securitySchemes: {
          bearer: { type: 'http', scheme: 'bearer', description: 'A Leo token (leo_op_, leo_dv_...)' },
        },
      },
    },
    transform: createJsonSchemaTransform({ skipList: [], schemaRegistry: apiComponents }),
    transformObject: (input) => withoutUnusedInputs(componentsOf(input)),
  });
}

const componentsOf = createJsonSchemaTransformObject({ schemaRegistry: apiComponents });

/**
 * The type provider emits every component twice, as read (`Agent`) and as written (`AgentInput`); only the written
 * forms some request body uses are kept, so the components list what clients meet.
 */
function withoutUnusedInputs(generated: ReturnType<typeof componentsOf>): OpenAPIV3_1.Document {
  // The document is OpenAPI 3.1 (installOpenApi), never the Swagger 2 shape the transform's type also allows.
  const doc = generated as OpenAPIV3_1.Document;
  const schemas = { ...(doc.components?.schemas ?? {}) };
  const text = JSON.stringify({ ...doc, components: { ...doc.components, schemas: {} } });
  for (const name of Object.keys(schemas))
    if (name.endsWith('Input') && !text.includes(`"#/components/schemas/${name}"`)) delete schemas[name];
  return { ...doc, components: { ...doc.components, schemas } };
}

/** Who a route admits, as the document states it: `public`, `socket` (the unix socket only) or the token kinds. */
function accessLabel(access: RouteAccess): string {
  if (access.socketOnly) return 'socket';
  if (access.tokens === 'public') return 'public';
  return [
    ...access.tokens,
    ...(access.clientMustPost ? ['(client with can_post)'] : []),
    ...(access.deviceMustRunFleet ? ['(device with the fleet scope)'] : []),
  ].join(' ');
}
