// One delivery attempt: the stored body POSTed, freshly signed, through the SSRF guard (checked again on every
// attempt: DNS can change), no redirect followed, a deadline on the whole exchange. Never throws.
import { FetchError, guardedFetch, type Resolver } from "@trove/webfetch";
import { signatureHeaders } from "./signing.ts";

export interface SendOptions {
  allowPrivate: boolean;
  resolver?: Resolver;
  timeoutMs: number;
  signal: AbortSignal;
}

export interface AttemptOutcome {
  ok: boolean;
  statusCode: number | null;
  /** Stable code of a failure: http_status, redirect, timeout, connect, dns, network, url_not_allowed. */
  error: string | null;
  message: string | null;
  retryAfter: string | undefined;
  /** Cut short by its job's signal (a stop, a lost lease): not an attempt, the delivery goes back as it was. */
  aborted: boolean;
}

export const userAgent = "Trove-Webhooks/0.1";
// The response body is not kept; a little is read so the exchange completes cleanly.
const maxResponseBytes = 16 * 1024;

const reasonCodes: Record<string, string> = {
  too_many_redirects: "redirect",
  timeout: "timeout",
  connect: "connect",
  dns: "dns",
  network: "network",
  blocked_address: "url_not_allowed",
  invalid_url: "url_not_allowed",
  unsupported_scheme: "url_not_allowed",
};

export async function sendAttempt(url: string, msgId: string, body: string, secrets: string[], opts: SendOptions): Promise<AttemptOutcome> {
  const headers = { "content-type": "application/json", ...signatureHeaders(secrets, msgId, new Date(), body) };
  try {
    const res = await guardedFetch(url, {
      method: "POST",
      body,
      headers,
      allowPrivate: opts.allowPrivate,
      resolver: opts.resolver,
      maxRedirects: 0,
      timeoutMs: opts.timeoutMs,
      connectTimeoutMs: Math.min(5_000, opts.timeoutMs),
      maxBytes: maxResponseBytes,
      userAgent,
      accept: "*/*",
      signal: opts.signal,
    });
    const ok = res.status >= 200 && res.status < 300;
    return {
      ok,
      statusCode: res.status,
      error: ok ? null : "http_status",
      message: ok ? null : `HTTP ${res.status}`,
      retryAfter: res.headers["retry-after"],
      aborted: false,
    };
  } catch (err) {
    if (opts.signal.aborted) return { ok: false, statusCode: null, error: null, message: null, retryAfter: undefined, aborted: true };
    if (err instanceof FetchError) {
      const code = reasonCodes[err.reason] ?? "network";
      const message = code === "redirect" ? `redirected (HTTP ${err.status}); webhook deliveries do not follow redirects` : err.message;
      return { ok: false, statusCode: err.status ?? null, error: code, message: message.slice(0, 500), retryAfter: undefined, aborted: false };
    }
    return { ok: false, statusCode: null, error: "network", message: (err as Error).message?.slice(0, 500) ?? "failed", retryAfter: undefined, aborted: false };
  }
}
