// A request body is checked as parsed, before Elysia validates it. Elysia would validate a body that is not an
// object (an array, a string, null) as `{}` when every field is optional, would turn the JSON string "12" into
// 12 where the contract says integer, and fails with a 500 when it describes a deeply nested value in its error
// (it stringifies the body recursively), and makes an object of a string or array given for one. Each of these
// answers 400 validation_failed naming the field instead.
import type { Operation } from "@trove/contracts";
import type { AppError } from "@trove/errors";
import { validationFailed } from "./errors.ts";

/** Deepest nesting a body may have: the contract's bodies are a few levels deep. */
export const maxBodyDepth = 32;

interface Schema {
  type?: string;
  format?: string;
  properties?: Record<string, Schema>;
  items?: Schema;
  anyOf?: Schema[];
}

const isNumber = (s: Schema) => s.type === "integer" || s.type === "number";
// Elysia rewrites a numeric schema in place into a union with a string of format integer/numeric.
const isNumericString = (s: Schema) => s.type === "string" && (s.format === "integer" || s.format === "numeric");
const numeric = (s: Schema) => isNumber(s) || (!!s.anyOf?.some(isNumber) && s.anyOf.every((m) => isNumber(m) || isNumericString(m) || m.type === "null"));

// Elysia turns a string or array given for an object into an object of its characters ("x" -> {"0": "x"}).
const isObject = (s: Schema) => s.type === "object";
const objectOnly = (s: Schema) => isObject(s) || (!!s.anyOf?.some(isObject) && s.anyOf.every((m) => isObject(m) || m.type === "null"));
const nullable = (s: Schema) => !!s.anyOf?.some((m) => m.type === "null");

const member = (s: Schema | undefined, has: (m: Schema) => unknown) => (s && has(s) ? s : s?.anyOf?.find(has));

/**
 * The 400 for a body that is not an object, is nested too deep, or (in JSON, where numbers have their own type;
 * a form's values are all strings) holds a string where the contract wants a number; else null.
 */
export function checkJsonBody(op: Operation, body: unknown, json: boolean): AppError | null {
  if (!op.body || body === undefined) return null;
  if (body === null || typeof body !== "object" || Array.isArray(body)) {
    return validationFailed("body", [{ path: "", message: "expected a JSON object" }]);
  }
  const issues: { path: string; message: string }[] = [];
  // An explicit stack: the body's depth is the client's choice.
  const stack: { value: unknown; schema: Schema | undefined; path: string; depth: number }[] = [{ value: body, schema: op.body as Schema, path: "", depth: 0 }];
  while (stack.length > 0) {
    const { value, schema, path, depth } = stack.pop()!;
    if (depth > maxBodyDepth) {
      // Named by its top-level field: the full path of something this deep is no help.
      return validationFailed("body", [{ path: path.split("/").slice(0, 2).join("/"), message: `nested more than ${maxBodyDepth} levels deep` }]);
    }
    if (json && typeof value === "string" && schema && numeric(schema)) issues.push({ path, message: "expected a number, not a string" });
    else if (path !== "" && schema && objectOnly(schema) && (typeof value !== "object" || Array.isArray(value) || (value === null && !nullable(schema)))) {
      issues.push({ path, message: "expected an object" });
    }
    else if (Array.isArray(value)) {
      const items = member(schema, (m) => m.items)?.items;
      value.forEach((v, i) => stack.push({ value: v, schema: items, path: `${path}/${i}`, depth: depth + 1 }));
    } else if (value !== null && typeof value === "object") {
      const props = member(schema, (m) => m.properties)?.properties ?? {};
      for (const [k, v] of Object.entries(value)) stack.push({ value: v, schema: props[k], path: `${path}/${k}`, depth: depth + 1 });
    }
  }
  return issues.length > 0 ? validationFailed("body", issues.reverse()) : null;
}
