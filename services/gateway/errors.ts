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

/** Most fields one 400 names; past it, problems are reported per top-level field (20,000 bad elements: one entry). */
const maxNamedFields = 20;

/**
 * Turns Elysia's validation error into 400 validation_failed with one message per field (`scope.tagSlugs.1`).
 * When that would name more than maxNamedFields, each problem is reported at its top-level field instead, its
 * inner path leading the message (`smartTagRules: "19999.field: ..."`), so the answer stays bounded.
 */
export function validationFailed(where: string, issues: ValidationIssue[]): AppError {
  const paths = issues.map((issue) => (issue.path ?? "").replace(/^\//, "").split("/").filter((s) => s !== ""));
  const nested = new Set(paths.map((p) => p.join("."))).size <= maxNamedFields;
  const fields: Record<string, string> = {};
  issues.forEach((issue, i) => {
    const path = paths[i]!;
    const message = issue.summary ?? issue.message ?? "invalid value";
    const key = (nested ? path.join(".") : path[0]) || where;
    const inner = nested ? [] : path.slice(1);
    fields[key] ??= inner.length > 0 ? `${inner.join(".")}: ${message}` : message;
  });
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
