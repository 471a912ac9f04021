import { AppError } from "@trove/errors";

export type FetchErrorReason =
  | "blocked_address"
  | "invalid_url"
  | "unsupported_scheme"
  | "dns"
  | "connect"
  | "timeout"
  | "too_many_redirects"
  | "http_status"
  | "network";

export class FetchError extends Error {
  readonly reason: FetchErrorReason;
  readonly status?: number;
  /** The URL being fetched when it failed (credentials already stripped). */
  readonly url: string;
  /** For logs only, never for API answers: what the message leaves out (a resolved address). */
  readonly detail?: string;

  constructor(reason: FetchErrorReason, message: string, url: string, extra: { status?: number; cause?: unknown; detail?: string } = {}) {
    super(message, extra.cause === undefined ? undefined : { cause: extra.cause });
    this.name = "FetchError";
    this.reason = reason;
    this.url = url;
    if (extra.status !== undefined) this.status = extra.status;
    if (extra.detail !== undefined) this.detail = extra.detail;
  }
}

const REFUSALS = new Set<FetchErrorReason>(["blocked_address", "invalid_url", "unsupported_scheme"]);

/**
 * The API error for a URL Trove refuses to fetch (url_not_allowed, 400), or null when
 * the failure is the remote side's (dns, timeout, HTTP status...), which callers
 * usually record on the item instead of failing the request.
 */
export function urlRefusal(err: unknown): AppError | null {
  if (!(err instanceof FetchError) || !REFUSALS.has(err.reason)) return null;
  return new AppError("url_not_allowed", err.message, { reason: err.reason });
}
