// Turning user input and Location headers into a URL the fetcher may request.
import { isIP } from "node:net";
import { FetchError } from "./errors.ts";

/**
 * Parses `input` (relative to `base` for redirects) with the WHATWG parser, which
 * already canonicalises IPv4 spellings (127.1, 2130706433, 0x7f.1, 0177.0.0.1 all
 * become 127.0.0.1) and IPv6 literals. Only http and https are allowed.
 *
 * Credentials (user:pass@) are stripped, not refused: pasted links sometimes carry
 * them, and Trove must neither send a user's secrets to a third party on their
 * behalf nor store them in the saved URL, the redirect chain or logs.
 */
export function parseTarget(input: string, base?: URL): URL {
  let url: URL;
  try {
    url = new URL(input, base);
  } catch {
    throw new FetchError("invalid_url", "not a valid URL", base ? `${base.href} -> ${input}` : input);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new FetchError("unsupported_scheme", `scheme ${url.protocol} is not fetched`, url.href);
  }
  if (!url.hostname) throw new FetchError("invalid_url", "URL has no host", url.href);
  url.username = "";
  url.password = "";
  return url;
}

/** The host as a socket wants it: IPv6 literals without brackets. */
export function socketHost(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, "$1");
}

/** The literal IP address when the URL names one, else null (a name to resolve). */
export function literalIp(url: URL): string | null {
  const host = socketHost(url);
  return isIP(host) ? host : null;
}
