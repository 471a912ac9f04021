// One rule for every string of every request, applied after schema validation: a NUL character (PostgreSQL's
// text and jsonb refuse it) or a lone UTF-16 surrogate (jsonb refuses it; text would silently store U+FFFD)
// answers 400 validation_failed naming the field. Page text a user captured (a `PageText` schema of the contract,
// `x-trove-page-text` in the OpenAPI document) is exempt: extraction cleans it, as it cleans fetched pages.
import { pageTextMark, type Operation } from "@trove/contracts";
import type { AppError } from "@trove/errors";
import { validationFailed } from "./errors.ts";

/** Why a string cannot be stored as given, or null when it can. Native scans: about 1 ms a MB. */
export function unstorable(s: string): string | null {
  if (s.includes("\u0000")) return "contains a NUL character";
  if (!s.isWellFormed()) return "contains a lone UTF-16 surrogate";
  return null;
}

interface Schema {
  properties?: Record<string, Schema>;
  items?: Schema;
  anyOf?: Schema[];
  [pageTextMark]?: boolean;
}

const isPageText = (s: Schema | undefined): boolean => s?.[pageTextMark] === true || (s?.anyOf?.some(isPageText) ?? false);

/** The schema of one property or element, through nullable unions; undefined when the schema does not say. */
function childSchema(s: Schema | undefined, key: string | number): Schema | undefined {
  if (!s) return undefined;
  if (typeof key === "number") return s.items ?? s.anyOf?.find((m) => m.items)?.items;
  return s.properties?.[key] ?? s.anyOf?.find((m) => m.properties?.[key])?.properties?.[key];
}

type Part = "params" | "query" | "body";

/** The 400 for the first request part holding an unstorable string (every such field of it named), or null. */
export function checkText(op: Operation, input: Record<Part, unknown>): AppError | null {
  for (const part of ["params", "query", "body"] as const) {
    const issues: { path: string; message: string }[] = [];
    // An explicit stack: the walk is as deep as the value, and a body's depth is the client's choice.
    const stack: { value: unknown; schema: Schema | undefined; path: string }[] = [{ value: input[part], schema: op[part] as Schema | undefined, path: "" }];
    while (stack.length > 0) {
      const { value, schema, path } = stack.pop()!;
      if (isPageText(schema)) continue;
      if (typeof value === "string") {
        const why = unstorable(value);
        if (why) issues.push({ path, message: why });
      } else if (Array.isArray(value)) {
        value.forEach((v, i) => stack.push({ value: v, schema: childSchema(schema, i), path: `${path}/${i}` }));
      } else if (value !== null && typeof value === "object") {
        for (const [k, v] of Object.entries(value)) {
          const why = unstorable(k);
          if (why) issues.push({ path: `${path}/${k}`, message: `name ${why}` });
          stack.push({ value: v, schema: childSchema(schema, k), path: `${path}/${k}` });
        }
      }
    }
    if (issues.length > 0) return validationFailed(part, issues.reverse());
  }
  return null;
}
