// @trove/webfetch: the one way Trove fetches URLs it was given (saved pages, feeds,
// webhooks), with an SSRF guard on every hop, deadlines, a size cap and charset decoding.
import { decodeBody, isTextual } from "./charset.ts";
import { FetchError } from "./errors.ts";
import { fetchWith } from "./request.ts";
import type { FetchOptions, FetchResult } from "./types.ts";

export { blockedRange } from "./address.ts";
export { checkTarget } from "./guard.ts";
export { decodeBody } from "./charset.ts";
export { FetchError, urlRefusal } from "./errors.ts";
export type { FetchErrorReason } from "./errors.ts";
export { DEFAULT_USER_AGENT } from "./request.ts";
export type { FetchOptions, FetchResult } from "./types.ts";
export type { Resolver, ResolvedAddress } from "./guard.ts";

const HTML_ACCEPT = "text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8";

/** Fetches `url` through the guard. Any HTTP status is returned; only transport failures throw FetchError. */
export function guardedFetch(url: string, opts: FetchOptions): Promise<FetchResult> {
  return fetchWith(url, opts);
}

/**
 * GETs a page as a browser would ask for it and decodes its text (charset from header,
 * BOM, <meta>, else sniffed). Throws FetchError "http_status" for HTTP >= 400.
 * `text` is "" for non-textual types (PDF, images...): use `bytes` for those.
 * `charset` is the one actually used to decode.
 */
export async function fetchPage(url: string, opts: FetchOptions): Promise<FetchResult & { text: string }> {
  const { body: _body, ...rest } = opts;
  const result = await fetchWith(url, { ...rest, method: "GET", accept: opts.accept ?? HTML_ACCEPT });
  if (result.status >= 400) {
    throw new FetchError("http_status", `HTTP ${result.status}`, result.url, { status: result.status });
  }
  if (!isTextual(result.contentType)) return { ...result, text: "" };
  const { text, charset } = decodeBody(result.bytes, result.headers["content-type"] ?? null);
  return { ...result, charset, text };
}
