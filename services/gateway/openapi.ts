// The OpenAPI document at /api/openapi.json, built once from the gateway's routes as soon as they are registered.
// Elysia writes into a schema when it first compiles it (additionalProperties: false), so a document built after
// some traffic described, for one, POST /api/ingest as refusing unknown properties, which it does not, and no
// longer matched docs/openapi.json. Built before the first request, it is the contract as written.
import { toOpenAPISchema } from "@elysiajs/openapi";
import { CloneType, type TSchema } from "@sinclair/typebox";
import type { AnyElysia } from "elysia";
import type { OpenAPIV3_1 } from "openapi-types";

export const specPath = "/api/openapi.json";
const openapiVersion = "3.1.2";

/**
 * A route's own copy of a contract schema: what Elysia writes into it stays with that route, so the contract's
 * objects (read again by every gateway built later in the same process) never change.
 */
export const ownCopy = <T>(schema: T): T => (schema === undefined ? schema : (CloneType(schema as TSchema) as T));

/** The document for every route registered so far (hidden ones left out), as the JSON text to serve. */
export function openApiDocument(
  app: AnyElysia,
  documentation: Pick<OpenAPIV3_1.Document, "info" | "components">,
  /** Routes whose body may also be a file sent as itself (Elysia describes only the schema's JSON forms). */
  fileRoutes: { method: string; path: string }[] = [],
): string {
  const { paths, components } = toOpenAPISchema(app, undefined, undefined, undefined, openapiVersion);
  for (const r of fileRoutes) {
    const path = r.path.replace(/:(\w+)/g, "{$1}");
    const body = (paths as Record<string, Record<string, { requestBody?: { content?: Record<string, unknown> } }>>)[path]?.[r.method.toLowerCase()]?.requestBody;
    if (body?.content) body.content["application/octet-stream"] = { schema: { type: "string", format: "binary", description: "the file itself, in any content type but the JSON form" } };
  }
  return JSON.stringify({
    ...documentation,
    openapi: openapiVersion,
    paths,
    components: { ...documentation.components, schemas: components.schemas },
  });
}
