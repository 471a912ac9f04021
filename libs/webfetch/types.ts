import type { Resolver } from "./guard.ts";

export interface FetchOptions {
  /** TROVE_ALLOW_PRIVATE_NETWORK=1: loopback/private/link-local/CGNAT... allowed (cloud metadata never is). */
  allowPrivate: boolean;
  /** Default GET. */
  method?: string;
  /** Override the defaults (case-insensitive); Host is always derived from the URL. */
  headers?: Record<string, string>;
  body?: string | Uint8Array;
  /** DNS + TCP connect + TLS handshake, per hop. Default 5000. */
  connectTimeoutMs?: number;
  /** Whole fetch: every hop and the body. Default 20000. */
  timeoutMs?: number;
  /** Decoded body cap; reading stops there and the result is marked truncated. Default 5 MiB. */
  maxBytes?: number;
  /** Redirects followed; one more fails with too_many_redirects. Default 5. */
  maxRedirects?: number;
  userAgent?: string;
  accept?: string;
  signal?: AbortSignal;
  /** Name -> addresses; default the system resolver. The test harness passes one that never asks DNS. */
  resolver?: Resolver;
}

export interface FetchResult {
  /** Final URL, after redirects, without credentials. */
  url: string;
  status: number;
  /** Lowercase names; repeated headers joined with ", ". As the server sent them (so content-encoding may still be listed although `bytes` are decoded). */
  headers: Record<string, string>;
  /** MIME type only, lowercase; "" when the server sent none. */
  contentType: string;
  /** The Content-Type charset parameter, lowercase (fetchPage: the charset actually used to decode). */
  charset: string | null;
  /** Body after Content-Encoding is undone; at most maxBytes. */
  bytes: Uint8Array;
  truncated: boolean;
  /** Every URL that answered with a redirect, in order; `url` is where the chain ended. */
  redirects: string[];
}
