// Request bodies read by the gateway itself, from the stream, counting bytes: a body without a declared length
// (chunked) stops at TROVE_MAX_BODY_BYTES exactly as a declared one does, with 413 payload_too_large as JSON.
// Bun's own limit is set out of the way, so it never answers in Trove's place with a bare 413.
import { AppError } from "@trove/errors";
import { tooDeep } from "./json-body.ts";

/** The body's bytes, or 413 payload_too_large as soon as more than `limit` bytes have arrived. */
export async function readLimited(request: Request, limit: number, tooMuch: () => AppError = () => tooLarge(limit)): Promise<Uint8Array> {
  if (!request.body) return new Uint8Array(0);
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = request.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => {});
      throw tooMuch();
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}

export const tooLarge = (limit: number) => new AppError("payload_too_large", `request body over ${limit} bytes`, { limit });

const bodyRefused = () => new AppError("validation_failed", "this route takes no request body", { fields: { body: "this route takes no body" } });

/**
 * A route that takes no body: nothing, white space or an empty JSON object (some clients send `{}` with every
 * POST) is read as no body; anything else answers 400 after at most a few bytes, never parsed nor passed on.
 */
export async function readNoBody(request: Request): Promise<""> {
  const bytes = await readLimited(request, 64, bodyRefused);
  const text = new TextDecoder().decode(bytes).replace(/\s/g, "");
  if (text === "" || text === "{}") return "";
  throw bodyRefused();
}

/** JSON by its media type (also `+json` types), parameters allowed. */
export function isJsonType(contentType: string): boolean {
  const type = contentType.split(";")[0]!.trim().toLowerCase();
  return type === "application/json" || type.endsWith("+json");
}

/**
 * The parsed body by content type, as Elysia would parse it: JSON (also `+json` types), URL-encoded and multipart
 * forms (a repeated key becomes an array), anything else as text. Malformed JSON answers 400 invalid_json, JSON
 * nested too deep 400 validation_failed.
 */
export async function parseBody(request: Request, contentType: string, limit: number): Promise<unknown> {
  const bytes = await readLimited(request, limit);
  const type = contentType.split(";")[0]!.trim().toLowerCase();
  if (isJsonType(type)) {
    // Depth is measured on the text first: parsing millions of levels would hold the event loop and memory
    // before any check could run.
    const deep = tooDeep(bytes);
    if (deep) throw deep;
    try {
      return JSON.parse(new TextDecoder().decode(bytes));
    } catch {
      throw new AppError("invalid_json", "request body is not valid JSON");
    }
  }
  if (type === "application/x-www-form-urlencoded") return entries(new URLSearchParams(new TextDecoder().decode(bytes)));
  if (type === "multipart/form-data") {
    try {
      return entries(await new Response(bytes, { headers: { "content-type": contentType } }).formData());
    } catch {
      throw new AppError("validation_failed", "request body is not a valid multipart form", { fields: { body: "malformed multipart form" } });
    }
  }
  return new TextDecoder().decode(bytes);
}

function entries(form: { forEach(fn: (value: unknown, key: string) => void): void }): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  form.forEach((value, key) => {
    const prev = out[key];
    out[key] = prev === undefined ? value : Array.isArray(prev) ? [...prev, value] : [prev, value];
  });
  return out;
}
