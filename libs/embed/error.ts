// The one error embedding throws, on both sides of the worker hop (the task throws it, the pooled embedder
// rebuilds it from the TaskFailedError). An AppError, so its code reaches the client as is.
import { AppError, type ErrorCode } from "@trove/errors";

export type EmbedErrorReason =
  /** The model could not be loaded (or the pool is closed): semantic search cannot be served. */
  | "embed_unavailable"
  /** A task ran past its deadline; its worker was stopped. */
  | "embed_timeout"
  /** Too many tasks already wait for a worker. */
  | "embed_busy"
  /** The worker died, or something else went wrong. */
  | "embed_failed"
  /** A text is empty or longer than the task takes, or too many texts in one task. */
  | "embed_input_invalid";

/** Every failure is semantic_unavailable (503) to a client, except input the caller should not have sent (400). */
export class EmbedError extends AppError {
  readonly reason: EmbedErrorReason;

  constructor(reason: EmbedErrorReason, message: string) {
    const code: ErrorCode = reason === "embed_input_invalid" ? "validation_failed" : "semantic_unavailable";
    super(code, message);
    this.name = "EmbedError";
    this.reason = reason;
  }
}

const reasons = new Set<string>([
  "embed_unavailable",
  "embed_timeout",
  "embed_busy",
  "embed_failed",
  "embed_input_invalid",
] satisfies EmbedErrorReason[]);

export function isEmbedErrorReason(value: unknown): value is EmbedErrorReason {
  return typeof value === "string" && reasons.has(value);
}
