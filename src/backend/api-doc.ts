// Documentation metadata for the API's zod schemas: component names, descriptions and examples
// for the OpenAPI document. It lives in a registry of its own, not zod's global one, because MCP
// clients get tool schemas from zod too, and a named schema there becomes a `$ref` they cannot
// follow. Schemas stay plain zod; the HTTP adapter reads this registry for the document, and the
// input messages (input-messages.ts) for a field's description.
import { z } from 'zod';

export interface ApiDocMeta {
  /** Component name in the OpenAPI document (`#/components/schemas/<id>`). */
  id?: string;
  description?: string;
  example?: unknown;
  /** Where a request parameter goes, for path and query parameter schemas. */
  param?: { name: string; in: 'path' | 'query' };
  /**
   * A bound zod can check only in a refinement, which the document cannot see (an object's number of
   * keys): stated here beside that refinement, from the same constant, so the document states it too.
   */
  maxProperties?: number;
}

/** Every schema given documentation, in declaration order, so the HTTP adapter can walk them. */
export const documented: [z.ZodType, ApiDocMeta][] = [];

class DocRegistry extends z.core.$ZodRegistry<ApiDocMeta> {
  override add<S extends z.core.$ZodType>(schema: S, meta: ApiDocMeta): this {
    documented.push([schema as unknown as z.ZodType, meta]);
    return super.add(schema, meta as never);
  }
}

/** `schema.register(apiDoc, { id, description, example })`: documents a schema, returns it. */
export const apiDoc = new DocRegistry();
