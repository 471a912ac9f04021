// The feed a site's page names: its first <link rel="alternate" type="application/rss+xml | application/atom+xml">.
import { scanHtml, stop } from "./html-scan.ts";

/** Characters of a page read for its feed link (the <head>, where the link belongs, is at the top). */
export const feedLinkScanChars = 1_000_000;

const feedType = /^application\/(rss|atom)\+xml$/;

/** The first RSS or Atom alternate link of an HTML page, absolute and http(s); null when it names none. */
export function alternateLink(html: string, base: string): string | null {
  let found: string | null = null;
  scanHtml(html.slice(0, feedLinkScanChars), {
    attributes: ["rel", "type", "href"],
    open(name, attrs) {
      if (name !== "link" || !attrs.href) return;
      const rel = attrs.rel?.toLowerCase().split(/\s+/) ?? [];
      const type = attrs.type?.trim().toLowerCase() ?? "";
      if (!rel.includes("alternate") || !feedType.test(type)) return;
      try {
        const url = new URL(attrs.href.trim(), base);
        if (url.protocol !== "http:" && url.protocol !== "https:") return;
        found = url.href;
        return stop;
      } catch {
        // A malformed href: look at the next link.
      }
    },
  });
  return found;
}
