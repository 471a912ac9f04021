// Saved URLs: only http(s), normalised so the same page saved twice is one item.
import { AppError } from "@trove/errors";

const trackingParams = /^(utm_[a-z_]+|fbclid|gclid|dclid|msclkid|mc_cid|mc_eid|_hsenc|_hsmi|igshid)$/i;

/** Parses a URL a user asked to save; 400 validation_failed for anything but an absolute http(s) URL. */
export function parseSaveUrl(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw new AppError("validation_failed", "url is not a valid absolute URL", { fields: { url: "not a valid absolute URL" } });
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") {
    throw new AppError("validation_failed", `url scheme ${url.protocol} is not allowed; use http or https`, {
      fields: { url: "only http and https URLs can be saved" },
    });
  }
  if (!url.hostname) throw new AppError("validation_failed", "url has no host", { fields: { url: "no host" } });
  return url;
}

/**
 * The canonical form: lowercase scheme and host (URL does that), no default port, no fragment, no tracking
 * parameters, and no credentials (`user:pass@` is never stored, listed or sent in events; the fetch drops it too).
 */
export function normalizeUrl(url: URL): string {
  const out = new URL(url.href);
  out.hash = "";
  out.username = "";
  out.password = "";
  for (const key of [...out.searchParams.keys()]) if (trackingParams.test(key)) out.searchParams.delete(key);
  // URLSearchParams re-encodes; keep the original query text when nothing was removed.
  if (out.searchParams.size === url.searchParams.size) out.search = url.search;
  if (out.search === "?") out.search = "";
  return out.href;
}

export const urlHash = (normalized: string): string =>
  new Bun.CryptoHasher("sha256").update(normalized).digest("hex").slice(0, 32);
