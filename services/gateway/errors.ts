// The one place where failures become HTTP responses: stable codes, JSON bodies, never a stack.
import type { TSchema } from "@sinclair/typebox";
import { Value } from "@sinclair/typebox/value";
import { AppError } from "@trove/errors";

const routeHelp = "See GET /api/docs (or /api/openapi.json) for every route this API offers.";

export function routeNotFound(method: string, path: string): AppError {
  return new AppError("not_found", `no route ${method} ${path}`, { resolution: routeHelp });
}

interface ValidationIssue {
  path?: string;
  message?: string;
  summary?: string;
}

/**
 * Turns Elysia's validation error into 400 validation_failed with one message per top-level field: a nested issue
 * is reported at its field, its path inside it leading the message (`smartTagRules: "0.contains: ..."`). So the
 * answer stays bounded (an array of 20,000 bad elements is one entry) and names what the caller sent, also when
 * Elysia wrapped a lone value into an array before checking it.
 */
export function validationFailed(where: string, issues: ValidationIssue[]): AppError {
  const fields: Record<string, string> = {};
  for (const issue of issues) {
    const [key = where, ...inner] = (issue.path ?? "").replace(/^\//, "").split("/").filter((s) => s !== "");
    const message = issue.summary ?? issue.message ?? "invalid value";
    fields[key] ??= inner.length > 0 ? `${inner.join(".")}: ${message}` : message;
  }
  const names = Object.keys(fields);
  return new AppError("validation_failed", `invalid ${where}: ${names.map((n) => `${n} (${fields[n]})`).join(", ")}`, { fields });
}

/**
 * Elysia converts a numeric query (or path) value and checks it alone, so a value out of range fails without its
 * name. This finds the fields whose converted value breaks their own schema, so the 400 still names them.
 */
export function outOfRangeFields(schemas: (TSchema | undefined)[], raw: Record<string, unknown>[]): ValidationIssue[] {
  const issues: ValidationIssue[] = [];
  schemas.forEach((schema, i) => {
    const values = raw[i] ?? {};
    for (const [name, field] of Object.entries((schema?.properties ?? {}) as Record<string, TSchema>)) {
      const value = values[name];
      const numeric = numericOf(field);
      if (typeof value === "string" && numeric && !Value.Check(numeric, Number(value))) issues.push({ path: `/${name}`, message: outOfRange(numeric) });
    }
  });
  return issues;
}

const isNumeric = (s: TSchema) => s.type === "integer" || s.type === "number";
// Elysia rewrites a numeric query schema in place into a union of a numeric string and the number itself.
const numericOf = (s: TSchema): TSchema | undefined => (isNumeric(s) ? s : (s.anyOf as TSchema[] | undefined)?.find(isNumeric));

const outOfRange = (s: TSchema) =>
  `expected ${s.type === "integer" ? "an integer" : "a number"}${s.minimum !== undefined ? ` >= ${s.minimum}` : ""}${s.maximum !== undefined ? ` <= ${s.maximum}` : ""}`;
