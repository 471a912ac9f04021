// Reading a feed (or a page that may name one) through the SSRF guard: conditional GET from the source's
// validators, a size cap and deadlines. What fails is a RunFailure with a message fit for the source's lastError.
import { FetchError, decodeBody, guardedFetch, type Resolver } from "@trove/webfetch";
import { fetchFailureText } from "./run-errors.ts";

/** A run's failure: `message` is shown to every reading key (run-errors.ts); `detail` is for the log only. */
export class RunFailure extends Error {
  override name = "RunFailure";
  constructor(
    message: string,
    readonly detail?: string,
  ) {
    super(message);
  }
}

export interface FetchDeps {
  allowPrivate: boolean;
  resolver?: Resolver;
}

export interface Validators {
  etag?: string;
  lastModified?: string;
}

export type Fetched = { notModified: true } | { notModified: false; text: string; url: string; contentType: string; validators: Validators };

/** Bounds of one feed fetch: documented in docs/decisions.md ("Sources"). */
export const feedFetchLimits = { connectTimeoutMs: 5_000, timeoutMs: 20_000, maxBytes: 10 * 1024 * 1024, maxRedirects: 5 };

const feedAccept = "application/rss+xml, application/atom+xml, application/rdf+xml, application/feed+json, application/xml;q=0.9, text/xml;q=0.9, text/html;q=0.5, */*;q=0.1";

export async function fetchFeed(url: string, deps: FetchDeps, validators: Validators = {}): Promise<Fetched> {
  const headers: Record<string, string> = {};
  if (validators.etag) headers["if-none-match"] = validators.etag;
  if (validators.lastModified) headers["if-modified-since"] = validators.lastModified;
  let res;
  try {
    res = await guardedFetch(url, { allowPrivate: deps.allowPrivate, resolver: deps.resolver, headers, accept: feedAccept, ...feedFetchLimits });
  } catch (err) {
    if (err instanceof FetchError) throw new RunFailure(fetchFailureText(err), err.message);
    throw err;
  }
  if (res.status === 304) return { notModified: true };
  if (res.status >= 400) throw new RunFailure(`the feed answered HTTP ${res.status}`);
  if (res.truncated) throw new RunFailure(`the feed is larger than ${feedFetchLimits.maxBytes} bytes`);
  const { text } = decodeBody(res.bytes, res.headers["content-type"] ?? null);
  return {
    notModified: false,
    text,
    url: res.url,
    contentType: res.contentType,
    validators: {
      ...(res.headers.etag ? { etag: res.headers.etag } : {}),
      ...(res.headers["last-modified"] ? { lastModified: res.headers["last-modified"] } : {}),
    },
  };
}
