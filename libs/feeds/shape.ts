// What a parsed feed looks like, its bounds, and the helpers that write feed text as HTML: all that the main thread
// needs of feeds. The parsing itself (normalise.ts, feedsmith underneath) runs in worker threads only (task.ts).

export interface FeedEntry {
  /** What makes the entry the same on the next poll: guid/id, else link, else a hash of title and date. */
  key: string;
  url: string | null;
  title: string;
  /** The entry's content (or summary), HTML as the feed gave it. */
  html: string;
  author: string | null;
  /** Unix seconds, or null when the feed gave no (readable) date. */
  publishedAt: number | null;
  imageUrl: string | null;
}

export interface Feed {
  format: "rss" | "atom" | "rdf" | "json";
  title: string;
  siteUrl: string | null;
  entries: FeedEntry[];
}

/** Bounds: entries kept per feed (the first, newest in feed order) and field sizes in characters. */
export const feedLimits = { entries: 5_000, key: 1_000, url: 4_096, title: 1_000, html: 500_000, author: 200 };

export class FeedParseError extends Error {
  override name = "FeedParseError";
}

/** The worker-pool task that parses a feed's text (task.ts; libs/host/tasks.ts serves it). */
export const feedParseTaskName = "parseFeed";

const escapes: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" };
export const escapeHtml = (s: string) => s.replace(/[&<>"]/g, (c) => escapes[c]!);

/** Plain text as paragraphs of HTML (YouTube descriptions, JSON Feed's content_text). */
export function textAsHtml(text: string | null): string {
  if (!text) return "";
  return text
    .split(/\n{2,}/)
    .map((p) => `<p>${escapeHtml(p).replace(/\n/g, "<br>")}</p>`)
    .join("");
}

/** At most n characters, never splitting a surrogate pair. */
export function cap(s: string, n: number): string {
  if (s.length <= n) return s;
  const cut = s.slice(0, n);
  return /[\uD800-\uDBFF]$/.test(cut) ? cut.slice(0, -1) : cut;
}
