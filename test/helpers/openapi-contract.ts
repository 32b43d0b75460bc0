import { Ajv2020 } from 'ajv/dist/2020.js';
import type { Response } from './http.js';

type Operation = { responses?: Record<string, { content?: Record<string, { schema?: unknown }> }> };
export type OpenApiDocument = { paths: Record<string, Record<string, Operation>>; components: { schemas: object } };

/** A fastify route URL as OpenAPI spells it: /api/v1/agents/:name → /api/v1/agents/{name}, a trailing `*` → `{*}`. */
export const openApiPath = (url: string) => url.replace(/:(\w+)/g, '{$1}').replace(/\*$/, '{*}');

/**
 * Judges live answers by an OpenAPI document: the JSON schema of the response its operation declares for the status
 * (the exact code, else its class, 4XX), compiled with ajv against the document itself so component $refs resolve.
 */
export class OpenApiContract {
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
  constructor(readonly doc: OpenApiDocument) {
    this.ajv.addSchema(doc as object, 'openapi.json');
  }

  operation(method: string, url: string): Operation | undefined {
    return this.doc.paths[openApiPath(url)]?.[method.toLowerCase()];
  }

  /** The JSON schema pointer of a response, or null when the operation declares no JSON body for that status. */
  responsePointer(method: string, url: string, status: number): string | null {
    const responses = this.operation(method, url)?.responses ?? {};
    const key = [String(status), `${String(status)[0]}XX`].find((k) => responses[k]?.content?.['application/json']);
    if (!key) return null;
    const escape = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');
    return `openapi.json#/paths/${escape(openApiPath(url))}/${method.toLowerCase()}/responses/${key}/content/application~1json/schema`;
  }

  /** What is wrong with a live answer by the document, or null when it agrees. */
  judge(method: string, url: string, res: Pick<Response, 'status' | 'json' | 'text'>): string | null {
    const label = `${method} ${url} → ${res.status}`;
    const pointer = this.responsePointer(method, url, res.status);
    if (!pointer) return `${label}: the document declares no JSON response for this status`;
    if (res.json === undefined) return `${label}: not JSON: ${res.text.slice(0, 200)}`;
    const validate = this.ajv.getSchema(pointer) ?? this.ajv.compile({ $ref: pointer });
    if (validate(res.json)) return null;
    return `${label}: ${this.ajv.errorsText(validate.errors)} in ${res.text.slice(0, 300)}`;
  }

  /** What is wrong with a value by a named component (an SSE event payload), or null. */
  judgeComponent(name: string, value: unknown): string | null {
    const ref = `openapi.json#/components/schemas/${name}`;
    if (!(this.doc.components.schemas as Record<string, unknown>)[name]) return `no component ${name}`;
    const validate = this.ajv.getSchema(ref) ?? this.ajv.compile({ $ref: ref });
    return validate(value) ? null : `${name}: ${this.ajv.errorsText(validate.errors)} in ${JSON.stringify(value)}`;
  }
}
