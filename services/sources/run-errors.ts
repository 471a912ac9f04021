// The texts a failed run or mail leaves in a source's lastError, its error events and its messages. Every reading
// key sees them (and so does the MCP list_sources tool), so they are built from failure kinds and our own counts,
// never from a lower layer's message: those name the feed's host, its address or its whole URL with the query that
// holds a private feed's token. The lower layer's text goes to the log, for the operator.
import { AppError } from "@trove/errors";
import type { FetchError, FetchErrorReason } from "@trove/webfetch";

const fetchTexts: Record<FetchErrorReason, string> = {
  blocked_address: "url_not_allowed: the feed (or a redirect) leads to an address Trove may not fetch",
  invalid_url: "url_not_allowed: the feed (or a redirect) names an address that is not a valid URL",
  unsupported_scheme: "url_not_allowed: the feed (or a redirect) leads to a scheme Trove does not fetch",
  dns: "fetch failed (dns): the feed's host name does not resolve",
  connect: "fetch failed (connect): no connection could be made to the feed's server",
  timeout: "fetch failed (timeout): the feed's server did not answer in time",
  too_many_redirects: "fetch failed (too_many_redirects): the feed redirects too many times",
  http_status: "fetch failed (http_status): the feed's server refused the request",
  network: "fetch failed (network): the connection broke while the feed was read",
};

/** What a failed feed fetch is called where every reading key sees it. */
export const fetchFailureText = (err: FetchError): string => fetchTexts[err.reason];

/**
 * Why adding an item failed, as a source shows it: a quota says which (its text is the plan's limits, ours),
 * anything else only its error code.
 */
export function addFailureText(err: unknown): string {
  if (!(err instanceof AppError)) return "internal error";
  return err.code === "quota_reached" ? `quota reached: ${err.message}` : err.code;
}
