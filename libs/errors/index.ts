// Stable error codes and the one place they map to HTTP statuses.
// Services throw AppError; the bus carries {code, message, details}; the gateway maps code -> status.

export const errorStatus = {
  validation_failed: 400,
  invalid_json: 400,
  invalid_cursor: 400,
  url_not_allowed: 400,
  feed_not_found: 400,
  unsupported_api_version: 400,
  unauthorized: 401,
  forbidden: 403,
  csrf_failed: 403,
  not_found: 404,
  revision_conflict: 409,
  endpoint_inactive: 409,
  invalid_state: 409,
  export_not_ready: 409,
  export_expired: 410,
  repository_claimed: 409,
  outside_scope: 409,
  payload_too_large: 413,
  range_too_large: 413,
  unsupported_media_type: 415,
  quota_reached: 429,
  rate_limited: 429,
  too_many_jobs: 429,
  internal_error: 500,
  service_unavailable: 503,
  semantic_unavailable: 503,
  timeout: 504,
} as const;

export type ErrorCode = keyof typeof errorStatus;

export function isErrorCode(code: unknown): code is ErrorCode {
  return typeof code === "string" && Object.hasOwn(errorStatus, code);
}

/** Route-specific fields carried next to `error` and `message` in the HTTP body. */
export type ErrorDetails = Record<string, unknown>;

export class AppError extends Error {
  readonly code: ErrorCode;
  readonly details: ErrorDetails | undefined;

  constructor(code: ErrorCode, message: string, details?: ErrorDetails) {
    super(message);
    this.name = "AppError";
    this.code = code;
    this.details = details;
  }

  get status(): number {
    return errorStatus[this.code];
  }

  /** The JSON body a client sees: never a stack, never internals. */
  toBody(): Record<string, unknown> {
    return { ...this.details, error: this.code, message: this.message };
  }
}

export const notFound = (what = "resource") => new AppError("not_found", `${what} not found`);

/** Turns anything thrown into an AppError; unknown failures become a bare internal_error. */
export function toAppError(err: unknown): AppError {
  if (err instanceof AppError) return err;
  if (err && typeof err === "object" && "code" in err && isErrorCode((err as { code: unknown }).code)) {
    const e = err as { code: ErrorCode; message?: string; details?: ErrorDetails };
    return new AppError(e.code, e.message ?? e.code, e.details);
  }
  return new AppError("internal_error", "internal error");
}
