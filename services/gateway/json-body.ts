// A request body is checked as parsed, before Elysia validates it. Elysia would validate a body that is not an
// object (an array, a string, null) as `{}` when every field is optional, would turn the JSON string "12" into
// 12 where the contract says integer, and fails with a 500 when it describes a deeply nested value in its error
// (it stringifies the body recursively), and makes an object of a string or array given for one. Each of these
// answers 400 validation_failed naming the field instead. Depth is measured first, on the text, before parsing.
import type { Operation } from "@trove/contracts";
import type { AppError } from "@trove/errors";
import { validationFailed } from "./errors.ts";

/** Deepest nesting a body may have: the contract's bodies are a few levels deep. */
export const maxBodyDepth = 32;

const tooDeepMessage = `nested more than ${maxBodyDepth} levels deep`;
const [QUOTE, BACKSLASH, COLON, OPEN_ARRAY, CLOSE_ARRAY, OPEN_OBJECT, CLOSE_OBJECT] = [0x22, 0x5c, 0x3a, 0x5b, 0x5d, 0x7b, 0x7d];

/**
 * The 400 for JSON text that nests containers deeper than a body may, found on the text before it is parsed
 * (one linear pass that stops at the first level too deep), named by its top-level field; else null. Text that is
 * not JSON passes (the parser refuses it next).
 */
export function tooDeep(bytes: Uint8Array): AppError | null {
  let depth = 0;
  let object = false;
  // The last string that ended at the top level, and the key of the top-level member being read.
  let last: [number, number] | null = null;
  let key: [number, number] | null = null;
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i];
    if (b === QUOTE) {
      const end = stringEnd(bytes, i + 1);
      if (depth === 1) last = [i, end + 1];
      i = end;
    } else if (b === OPEN_ARRAY || b === OPEN_OBJECT) {
      if (depth === 0) object = b === OPEN_OBJECT;
      // A container at the body's own level is depth 1 here; its members' values are checkJsonBody's depth 1.
      if (++depth > maxBodyDepth + 1) {
        const field = object && key ? keyName(bytes, key) : "";
        return validationFailed("body", [{ path: field ? `/${field}` : "", message: tooDeepMessage }]);
      }
    } else if (b === CLOSE_ARRAY || b === CLOSE_OBJECT) {
      if (depth > 0) depth--;
    } else if (b === COLON && depth === 1) {
      key = last;
    }
  }
  return null;
}

/** The index of the quote closing a string that starts at `from` (after its opening quote), or the text's end. */
function stringEnd(bytes: Uint8Array, from: number): number {
  for (let at = from; ; ) {
    const quote = bytes.indexOf(QUOTE, at);
    if (quote < 0) return bytes.length;
    // Escaped when an odd run of backslashes precedes it (each backslash is looked at once: runs end at quotes).
    let slashes = 0;
    for (let j = quote - 1; j >= from && bytes[j] === BACKSLASH; j--) slashes++;
    if (slashes % 2 === 0) return quote;
    at = quote + 1;
  }
}

/** A top-level key as the client wrote it (decoded, at most 200 characters), or "" when it is not valid JSON. */
function keyName(bytes: Uint8Array, [start, end]: [number, number]): string {
  try {
    return String(JSON.parse(new TextDecoder().decode(bytes.subarray(start, end)))).slice(0, 200);
  } catch {
    return "";
  }
}

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
      return validationFailed("body", [{ path: path.split("/").slice(0, 2).join("/"), message: tooDeepMessage }]);
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
