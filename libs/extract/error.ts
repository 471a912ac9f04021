// The one error extraction throws: everything else degrades to a poorer but valid result.

export type ExtractErrorReason =
  | "unsupported_content_type"
  | "empty"
  /** More elements than the budget (document.ts pageElementLimit): refused before any costly stage runs. */
  | "page_too_complex"
  /** Still running at the deadline; the worker thread doing it was stopped. */
  | "extract_timeout"
  /** Too many pages already waiting for a worker thread. */
  | "extract_busy"
  /** The worker thread died or the pool was closed (shutdown). */
  | "extract_failed";

const reasons = new Set<string>([
  "unsupported_content_type",
  "empty",
  "page_too_complex",
  "extract_timeout",
  "extract_busy",
  "extract_failed",
] satisfies ExtractErrorReason[]);

export class ExtractError extends Error {
  readonly reason: ExtractErrorReason;

  constructor(reason: ExtractErrorReason, message: string) {
    super(message);
    this.name = "ExtractError";
    this.reason = reason;
  }
}

export function isExtractErrorReason(value: unknown): value is ExtractErrorReason {
  return typeof value === "string" && reasons.has(value);
}
