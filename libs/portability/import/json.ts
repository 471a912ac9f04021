// JSON exports are one array of entries, at the top level or under a key ({"bookmarks": [...]}). A file that does
// not parse (cut short, or damaged in one place) is scanned instead: every complete element of that array is
// parsed on its own, so the entries before a cut, or around a damaged one, are still imported.
import { ImportFileError } from "./errors.ts";
import { decodeText } from "./text.ts";

/** An element of the array that is not valid JSON on its own. */
export const unreadable: unique symbol = Symbol("unreadable");

export interface JsonEntries {
  /** The whole document when it parsed; undefined when its entries were recovered by scanning. */
  document: unknown;
  /** The array's elements, in order. */
  items: unknown[];
  /** Set when the array did not end (the file was cut short). */
  truncated?: string;
  /** The file's text, for recovering other members of a document that did not parse. */
  text: string;
}

/**
 * The elements of the array at `key` of the top-level object (or of the top-level array when it is one).
 * Throws `corrupt_file` when nothing is recoverable and `unsupported_format` when the JSON has no such array.
 */
export function readJsonEntries(bytes: Uint8Array, key: string): JsonEntries {
  const text = decodeText(bytes);
  let document: unknown;
  try {
    document = JSON.parse(text);
  } catch (err) {
    return recover(text, key, (err as Error).message);
  }
  const items = Array.isArray(document) ? document : memberOf(document, key);
  if (!Array.isArray(items)) throw new ImportFileError("unsupported_format", `the JSON file has no "${key}" list`);
  return { document, items, text };
}

/** `value[key]` when value is a plain object. */
export function memberOf(value: unknown, key: string): unknown {
  return value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>)[key] : undefined;
}

/** The elements of the array at `key` of a text that does not parse as a whole; undefined when there is none. */
export function recoverArray(text: string, key: string): { items: unknown[]; closed: boolean } | undefined {
  let at = skipSpace(text, 0);
  if (text[at] === "{") {
    const value = findMember(text, at, key);
    if (value === undefined) return undefined;
    at = value;
  }
  if (text[at] !== "[") return undefined;
  const items: unknown[] = [];
  at++;
  for (;;) {
    at = skipSpace(text, at);
    if (at >= text.length) return { items, closed: false };
    const c = text[at];
    if (c === "]") return { items, closed: true };
    if (c === ",") {
      at++;
      continue;
    }
    const end = skipValue(text, at);
    // The last element was cut: it is part of the truncation, not an unreadable element.
    if (end < 0) return { items, closed: false };
    items.push(parseOrUnreadable(text.slice(at, end)));
    at = end;
  }
}

function recover(text: string, key: string, parseError: string): JsonEntries {
  const found = recoverArray(text, key);
  if (!found || (found.items.length === 0 && found.closed)) {
    throw new ImportFileError("corrupt_file", `not valid JSON (${parseError})`);
  }
  return found.closed
    ? { document: undefined, items: found.items, text }
    : { document: undefined, items: found.items, text, truncated: "the JSON file ends early (cut short?)" };
}

function parseOrUnreadable(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return unreadable;
  }
}

function skipSpace(text: string, at: number): number {
  while (at < text.length && /\s/.test(text[at] as string)) at++;
  return at;
}

/** The position after the string starting at `at` (a quote), or -1 when the text ends inside it. */
function skipString(text: string, at: number): number {
  for (let i = at + 1; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 92) i++; // backslash: the next character is escaped
    else if (c === 34) return i + 1;
  }
  return -1;
}

/** The position after the value starting at `at`, or -1 when the text ends inside it. */
function skipValue(text: string, at: number): number {
  const first = text[at];
  if (first === '"') return skipString(text, at);
  if (first === "{" || first === "[") {
    let depth = 0;
    for (let i = at; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c === 34) {
        const end = skipString(text, i);
        if (end < 0) return -1;
        i = end - 1;
      } else if (c === 123 || c === 91) depth++;
      else if (c === 125 || c === 93) {
        depth--;
        if (depth === 0) return i + 1;
      }
    }
    return -1;
  }
  // A number or literal ends at a delimiter; at the very end of the text it may have been cut.
  let i = at;
  while (i < text.length && !/[\s,\]}]/.test(text[i] as string)) i++;
  return i >= text.length ? -1 : i;
}

/** The position of the value of member `key` of the object starting at `at`, when it is before any damage. */
function findMember(text: string, at: number, key: string): number | undefined {
  let i = at + 1;
  for (;;) {
    i = skipSpace(text, i);
    if (text[i] === ",") {
      i++;
      continue;
    }
    if (text[i] !== '"') return undefined;
    const nameEnd = skipString(text, i);
    if (nameEnd < 0) return undefined;
    const name = parseOrUnreadable(text.slice(i, nameEnd));
    i = skipSpace(text, nameEnd);
    if (text[i] !== ":") return undefined;
    i = skipSpace(text, i + 1);
    if (name === key) return i;
    const end = skipValue(text, i);
    if (end < 0) return undefined;
    i = end;
  }
}
