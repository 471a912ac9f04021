// A parsed feed of any format (RSS 0.9x/2.0, RDF/RSS 1.0, Atom, JSON Feed, YouTube's Atom) as one bounded shape.
// Feeds come from anywhere: every field is capped and every entry gets a key, so the poller never trusts sizes.
import { parseFeed } from "feedsmith";
import { cap, FeedParseError, feedLimits, textAsHtml, type Feed, type FeedEntry } from "./shape.ts";

// feedsmith's shapes differ per format; only the few fields read here are touched, each checked.
type Loose = Record<string, any>;

/** Parses feed text; throws FeedParseError when it is no feed feedsmith recognises. */
export function parseFeedText(text: string): Feed {
  let parsed: { format: string; feed: Loose };
  try {
    parsed = parseFeed(text) as { format: string; feed: Loose };
  } catch (err) {
    throw new FeedParseError(`not a readable RSS, Atom, RDF or JSON feed: ${(err as Error).message}`);
  }
  const { format, feed } = parsed;
  const items: Loose[] = (format === "atom" ? feed.entries : feed.items) ?? [];
  const entryOf = format === "atom" ? atomEntry : format === "json" ? jsonEntry : rssEntry;
  return {
    format: format as Feed["format"],
    title: cap(text1(feed.title) ?? "", feedLimits.title),
    siteUrl: httpUrl(format === "atom" ? alternate(feed.links) : format === "json" ? feed.home_page_url : feed.link),
    entries: items.slice(0, feedLimits.entries).map((item) => finish(entryOf(item))),
  };
}

type Draft = Omit<FeedEntry, "key"> & { id: string | null; date: string | null };

function rssEntry(item: Loose): Draft {
  const date = str(item.pubDate) ?? str(item.dc?.dates?.[0]) ?? str(item.dc?.date) ?? str(item.dcterms?.modified);
  return {
    id: str(item.guid?.value) ?? str(item.guid),
    url: httpUrl(item.link) ?? httpUrl(item.guid?.isPermaLink !== false ? item.guid?.value : undefined),
    title: text1(item.title) ?? "",
    html: str(item.content?.encoded) ?? str(item.description) ?? "",
    author: str(item.authors?.[0]?.name) ?? str(item.authors?.[0]) ?? str(item.dc?.creators?.[0]) ?? str(item.dc?.creator),
    date,
    publishedAt: seconds(date),
    imageUrl: httpUrl(item.enclosures?.find((e: Loose) => str(e?.type)?.startsWith("image/"))?.url) ?? thumbnail(item.media),
  };
}

function atomEntry(item: Loose): Draft {
  const date = str(item.published) ?? str(item.updated);
  const group = item.media?.groups?.[0];
  return {
    id: str(item.id),
    url: httpUrl(alternate(item.links)),
    title: text1(item.title) ?? text1(group?.title) ?? "",
    html: text1(item.content) ?? text1(item.summary) ?? textAsHtml(text1(group?.description) ?? text1(item.media?.description)),
    author: str(item.authors?.[0]?.name),
    date,
    publishedAt: seconds(date),
    imageUrl: thumbnail(item.media),
  };
}

function jsonEntry(item: Loose): Draft {
  const date = str(item.date_published) ?? str(item.date_modified);
  return {
    id: str(item.id),
    url: httpUrl(item.url) ?? httpUrl(item.external_url),
    title: str(item.title) ?? "",
    html: str(item.content_html) ?? textAsHtml(str(item.content_text) ?? str(item.summary)),
    author: str(item.authors?.[0]?.name) ?? str(item.author?.name),
    date,
    publishedAt: seconds(date),
    imageUrl: httpUrl(item.image) ?? httpUrl(item.banner_image),
  };
}

function finish(d: Draft): FeedEntry {
  const title = cap(d.title.trim(), feedLimits.title);
  const key = d.id?.trim() || d.url || `h:${new Bun.CryptoHasher("sha256").update(`${title}\n${d.date ?? ""}`).digest("hex")}`;
  return {
    key: cap(key, feedLimits.key),
    url: d.url,
    title,
    html: cap(d.html, feedLimits.html),
    author: d.author === null ? null : cap(d.author.trim(), feedLimits.author) || null,
    publishedAt: d.publishedAt,
    imageUrl: d.imageUrl,
  };
}

function str(v: unknown): string | null {
  return typeof v === "string" && v.trim() !== "" ? v : typeof v === "number" ? String(v) : null;
}

/** A text construct: a string, or Atom's {value}. */
function text1(v: unknown): string | null {
  return str(v) ?? (v && typeof v === "object" ? str((v as Loose).value) : null);
}

function alternate(links: unknown): unknown {
  if (!Array.isArray(links)) return undefined;
  return (links.find((l: Loose) => !l?.rel || l.rel === "alternate") ?? links[0])?.href;
}

function thumbnail(media: Loose | undefined): string | null {
  return httpUrl(media?.groups?.[0]?.thumbnails?.[0]?.url) ?? httpUrl(media?.thumbnails?.[0]?.url) ?? null;
}

/** Absolute http(s) URLs only (a feed's javascript: or relative link is dropped), capped. */
function httpUrl(v: unknown): string | null {
  const s = str(v)?.trim();
  if (!s || s.length > feedLimits.url) return null;
  try {
    const u = new URL(s);
    return u.protocol === "http:" || u.protocol === "https:" ? u.href : null;
  } catch {
    return null;
  }
}

function seconds(date: string | null): number | null {
  if (date === null) return null;
  const ms = Date.parse(date);
  return Number.isFinite(ms) ? Math.floor(ms / 1000) : null;
}
