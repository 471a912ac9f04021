// What a tool answers: compact JSON text, bounded, saying how to get more; and the API's errors as tool errors
// (isError) that carry its code and details, so a model can react to `revision_conflict` or `quota_reached`
// instead of seeing a crashed session.
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { cutBytes } from "./text.ts";
import { ApiError } from "./api.ts";

/** Most a tool answer may hold: the API's exact-range read limit (32 KB). */
export const MAX_RESULT_BYTES = 32 * 1024;

/** A tool's answer: `data` as compact JSON, cut at MAX_RESULT_BYTES with `more` saying how to continue. */
export function answer(data: unknown, more?: string): CallToolResult {
  const body = more === undefined ? data : { ...(data as Record<string, unknown>), more };
  return { content: [{ type: "text", text: bounded(JSON.stringify(body), more) }] };
}

/** Plain text (a document's Markdown), cut at MAX_RESULT_BYTES the same way. */
export function textAnswer(text: string, more?: string): CallToolResult {
  return { content: [{ type: "text", text: bounded(text, more) }] };
}

/** A failure as the model should see it: the API's error code, message and details; never a thrown session error. */
export function failure(err: unknown): CallToolResult {
  const body =
    err instanceof ApiError
      ? { error: err.code, status: err.status, message: err.message, ...err.details }
      : { error: "tool_failed", message: err instanceof Error ? err.message : String(err) };
  return { isError: true, content: [{ type: "text", text: JSON.stringify(body) }] };
}

/** Runs a tool body; whatever it throws becomes a failure(). */
export async function guarded(run: () => Promise<CallToolResult>): Promise<CallToolResult> {
  try {
    return await run();
  } catch (err) {
    return failure(err);
  }
}

// The notice after a cut fits in the room kept for it.
const NOTICE_ROOM = 400;

function bounded(text: string, more?: string): string {
  const cut = cutBytes(text, MAX_RESULT_BYTES - NOTICE_ROOM);
  if (!cut.truncated) return text;
  return `${cut.text}\n[cut at ${MAX_RESULT_BYTES - NOTICE_ROOM} of ${Buffer.byteLength(text, "utf8")} bytes: ${more ?? "ask for a smaller page or a narrower view"}]`;
}
