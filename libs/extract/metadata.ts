// Page metadata read from <head>, JSON-LD and a few body conventions, before anything is removed. Readability's
// own answers win where it has them (see html.ts); these fill the gaps and cover pages Readability gives up on.
import type { DomDocument, DomElement } from "./dom.ts";
import { textOf } from "./dom.ts";
import { resolveUrl } from "./document.ts";
import { wordTokens } from "./content.ts";
import { findLdNode, jsonLdBlocks, ldNodes } from "./jsonld.ts";
import { recipeOf, type Recipe } from "./recipe.ts";

export interface PageMetadata {
  title: string | null;
  /** The title the page states in its structured data (JSON-LD headline, OpenGraph, Twitter, Dublin Core), without
   * a part naming the site; the first that the page's <title> or <h1> agrees with. */
  structuredTitle: string | null;
  /** The text of the page's one <h1>, when it has exactly one and the <title> agrees with it. */
  heading: string | null;
  /** The article's text as the page's JSON-LD gives it (schema.org articleBody), plain text. */
  articleBody: string | null;
  /** A schema.org Recipe the page states in JSON-LD. */
  recipe: Recipe | null;
  /** What the page's JSON-LD says about its authors (schema.org Person description): an author box's text. */
  authorBios: string[];
  byline: string | null;
  published: string | null;
  lang: string | null;
  siteName: string | null;
  excerpt: string | null;
  favicon: string;
}

// First match wins, so each list runs from the most to the least specific source.
const TITLE_KEYS = ["og:title", "twitter:title", "dc:title", "dcterms:title", "parsely-title"];
const BYLINE_KEYS = ["author", "dc:creator", "dcterms:creator", "parsely-author", "article:author", "byl"];
const PUBLISHED_KEYS = [
  "article:published_time",
  "og:published_time",
  "datepublished",
  "parsely-pub-date",
  "dc:date.issued",
  "dcterms:issued",
  "dc:date",
  "dcterms:date",
  "publish-date",
  "publish_date",
  "pubdate",
  "sailthru.date",
  "date",
];
const EXCERPT_KEYS = ["description", "og:description", "twitter:description", "dc:description"];
const SITE_KEYS = ["og:site_name", "application-name", "apple-mobile-web-app-title"];

/** Everything the page says about itself; `url` is the page address. */
export function readMetadata(doc: DomDocument, url: string): PageMetadata {
  const meta = metaValues(doc);
  const blocks = jsonLdBlocks(doc);
  const ld = jsonLd(blocks);
  const pick = (keys: string[]): string | null => {
    for (const key of keys) {
      const value = meta.get(key);
      if (value) return value;
    }
    return null;
  };
  const h1s = doc.body.getElementsByTagName("h1");
  const shown = `${doc.querySelector("title")?.textContent ?? ""} ${Array.from(h1s, (h) => h.textContent ?? "").join(" ")}`;
  const siteName = ld.siteName ?? pick(SITE_KEYS);
  const structuredTitle =
    [ld.title, ...TITLE_KEYS.map((k) => meta.get(k))]
      .map((t) => (t ? withoutSiteName(t, siteName, url) : undefined))
      .find((t): t is string => !!t && agreesWith(t, shown)) ?? null;
  const title = structuredTitle ?? documentTitle(doc);
  markTitleHeading(doc, title);
  return {
    title,
    structuredTitle,
    heading: confirmedHeading(h1s, doc),
    articleBody: ld.articleBody ?? itempropArticleBody(doc),
    recipe: recipeOf(blocks),
    authorBios: authorBios(blocks),
    byline: ld.byline ?? nonUrl(pick(BYLINE_KEYS)),
    published: toIsoDate(ld.published ?? pick(PUBLISHED_KEYS) ?? timeElementDate(doc)),
    lang: normaliseLang(
      doc.documentElement?.getAttribute("lang") ?? meta.get("content-language") ?? meta.get("og:locale") ?? null,
    ),
    siteName,
    excerpt: ld.excerpt ?? pick(EXCERPT_KEYS),
    favicon: favicon(doc, url),
  };
}

// <meta name|property|itemprop|http-equiv=... content=...>, keys lower-cased; the first occurrence wins.
function metaValues(doc: DomDocument): Map<string, string> {
  const values = new Map<string, string>();
  for (const el of Array.from(doc.getElementsByTagName("meta"))) {
    const content = el.getAttribute("content")?.replace(/\s+/g, " ").trim();
    if (!content) continue;
    for (const attr of ["property", "name", "itemprop", "http-equiv"]) {
      const names = el.getAttribute(attr);
      if (!names) continue;
      // property may list several names ("og:title twitter:title").
      for (const name of names.toLowerCase().split(/\s+/)) if (name && !values.has(name)) values.set(name, content);
    }
  }
  return values;
}

interface LdValues {
  title?: string;
  articleBody?: string;
  byline?: string;
  published?: string;
  siteName?: string;
  excerpt?: string;
}

const LD_ARTICLE = /Article|BlogPosting|NewsArticle|Report|SocialMediaPosting|LiveBlogPosting|WebPage/;

// The first schema.org article-like object among the page's JSON-LD blocks.
function jsonLd(blocks: unknown[]): LdValues {
  const node = findLdNode(blocks, (t) => LD_ARTICLE.test(t));
  if (!node) return {};
  const str = (v: unknown): string | undefined => (typeof v === "string" && v.trim() ? v.trim() : undefined);
  const name = (v: unknown): string | undefined => {
    if (Array.isArray(v)) return v.map(name).filter(Boolean).join(", ") || undefined;
    return str(v) ?? (v && typeof v === "object" ? str((v as Record<string, unknown>).name) : undefined);
  };
  return {
    title: str(node.headline) ?? str(node.name),
    articleBody: str(node.articleBody),
    byline: name(node.author),
    published: str(node.datePublished) ?? str(node.dateCreated),
    siteName: name(node.publisher),
    excerpt: str(node.description),
  };
}

// A description shorter than this is a job title ("Editor"), words an article may well contain.
const MIN_BIO = 60;

function authorBios(blocks: unknown[]): string[] {
  const bios = new Set<string>();
  for (const person of ldNodes(blocks, (t) => t === "Person")) {
    const d = person.description;
    if (typeof d === "string" && d.trim().length >= MIN_BIO) bios.add(d.replace(/\s+/g, " ").trim());
  }
  return [...bios];
}

// <time> is a weaker signal than metadata: only one explicitly marked as the publication date, one inside the
// article, or the page's only <time>.
function timeElementDate(doc: DomDocument): string | null {
  const marked = doc.querySelector("time[itemprop~=datePublished][datetime], time[pubdate][datetime]");
  if (marked) return marked.getAttribute("datetime");
  const inArticle = doc.querySelector("article time[datetime], main time[datetime]");
  if (inArticle) return inArticle.getAttribute("datetime");
  const all = doc.querySelectorAll("time[datetime]");
  return all.length === 1 ? (all[0]?.getAttribute("datetime") ?? null) : null;
}

/**
 * A date as an ISO 8601 string: a bare date stays "YYYY-MM-DD" (no invented time of day), anything with a time
 * becomes UTC `toISOString()`; a date-time without a zone is read as UTC so the result does not depend on the
 * server's time zone. Unparseable or implausible values give null.
 */
export function toIsoDate(value: string | null | undefined): string | null {
  const s = value?.trim();
  if (!s) return null;
  if (/^\d{4}-\d{2}-\d{2}$/.test(s)) return Number.isNaN(Date.parse(s)) ? null : s;
  const zoneless = /^\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/.test(s);
  const ms = Date.parse(zoneless ? `${s.replace(" ", "T")}Z` : s);
  if (Number.isNaN(ms)) return null;
  const year = new Date(ms).getUTCFullYear();
  if (year < 1970 || year > 2200) return null;
  return new Date(ms).toISOString();
}

function normaliseLang(value: string | null): string | null {
  const s = value?.trim().replace(/_/g, "-");
  return s && /^[a-z]{2,3}(-[a-z0-9]{1,8})*$/i.test(s) ? s : null;
}

function nonUrl(value: string | null): string | null {
  return value && !/^https?:\/\//i.test(value) ? value : null;
}

// Icons in order of preference; a page without any still usually serves /favicon.ico.
function favicon(doc: DomDocument, url: string): string {
  const links = Array.from(doc.querySelectorAll("link[rel][href]"));
  const rank = (el: DomElement): number => {
    const rel = ` ${(el.getAttribute("rel") ?? "").toLowerCase()} `;
    if (/ icon /.test(rel)) return 0; // "icon" and "shortcut icon"
    if (/ apple-touch-icon(-precomposed)? /.test(rel)) return 1;
    return 9;
  };
  const best = links
    .map((el) => ({ el, rank: rank(el) }))
    .filter((c) => c.rank < 9)
    .sort((a, b) => a.rank - b.rank);
  for (const { el } of best) {
    const href = resolveUrl(el.getAttribute("href") ?? "", baseHref(doc, url));
    if (href && /^https?:/i.test(href)) return href;
  }
  return originFavicon(url);
}

/** `<origin>/favicon.ico` of a web address, "" for anything else. */
export function originFavicon(url: string): string {
  try {
    const parsed = new URL(url);
    return /^https?:$/.test(parsed.protocol) ? `${parsed.origin}/favicon.ico` : "";
  } catch {
    return "";
  }
}

/**
 * The article's title. Structured data first, because the page states it for exactly this purpose (without the
 * site's name that many pages append, see readMetadata), but the headline as the page shows it when its <title>
 * agrees: social titles are often rewritten. Then Readability's title (from <title> and the headings), then the
 * document's.
 */
export function chooseTitle(meta: PageMetadata, readabilityTitle: string | null): string | null {
  const heading = meta.heading;
  if (heading && heading.length >= 10) return heading;
  return meta.structuredTitle ?? readabilityTitle ?? meta.title;
}

const TITLE_SEPARATOR = /\s+(?:[|\-–—»·•:\/]|::)\s+/;

function withoutSiteName(title: string, siteName: string | null, url: string): string {
  const parts = title.split(TITLE_SEPARATOR);
  if (parts.length < 2) return title;
  const host = hostLabel(url);
  const names = (part: string): boolean => {
    const f = fold(part).replace(/[\s.-]+/g, "");
    if (!f) return false;
    if (siteName && f === fold(siteName).replace(/[\s.-]+/g, "")) return true;
    return !!host && (f.includes(host) || host.includes(f)) && part.split(/\s+/).length <= 4;
  };
  const separators = title.match(new RegExp(TITLE_SEPARATOR, "g")) ?? [];
  // Drop a naming part at the end, else one at the start; the rest is rejoined with its own separators.
  if (names(parts[parts.length - 1]!)) return joinParts(parts.slice(0, -1), separators);
  if (names(parts[0]!)) return joinParts(parts.slice(1), separators.slice(1));
  return title;
}

function joinParts(parts: string[], separators: string[]): string {
  return parts.reduce((out, part, i) => (i === 0 ? part : out + (separators[i - 1] ?? " - ") + part), "");
}

// The registrable-looking label of a host: "www.chefkoch.de" -> "chefkoch".
function hostLabel(url: string): string | null {
  try {
    const labels = new URL(url).hostname.replace(/^www\d*\./, "").split(".");
    return labels.length >= 2 ? labels[labels.length - 2]!.replace(/-/g, "") : (labels[0] ?? null);
  } catch {
    return null;
  }
}

function fold(s: string): string {
  return s.normalize("NFKC").toLowerCase().replace(/\s+/g, " ").trim();
}

/** The attribute set on the heading that shows the article's title (see markTitleHeading). */
export const TITLE_ATTR = "data-trove-title";

// The heading that shows the article's title on the page: of the <h1>s (else the <h2>s) with text, the one whose
// words the title shares most, at least half of them; a page's only <h1> when none agrees. Pages carry empty
// logo <h1>s, "Read also" <h1>s in widgets and several headline variants, so "the first <h1>" is not it.
export function markTitleHeading(doc: DomDocument, title: string | null): void {
  const seen = new Set(wordTokens(title ?? ""));
  for (const tag of ["h1", "h2"]) {
    const headings = Array.from(doc.body.getElementsByTagName(tag)).filter((h) => textOf(h));
    let best: DomElement | null = null;
    let bestShare = 0.5;
    for (const h of headings) {
      const words = wordTokens(textOf(h));
      const share = words.length ? words.filter((w) => seen.has(w)).length / words.length : 0;
      if (share > bestShare || (share === bestShare && !best && share > 0)) [best, bestShare] = [h, share];
    }
    if (!best && tag === "h1" && headings.length === 1) best = headings[0]!;
    if (best) {
      best.setAttribute(TITLE_ATTR, "");
      return;
    }
  }
}

// Microdata's articleBody as text; only a single such element is a statement about the page's article.
function itempropArticleBody(doc: DomDocument): string | null {
  const marked = doc.body.querySelectorAll("[itemprop~=articleBody]");
  return marked.length === 1 && marked[0] ? textOf(marked[0]) || null : null;
}

function confirmedHeading(h1s: ArrayLike<DomElement>, doc: DomDocument): string | null {
  if (h1s.length !== 1 || !h1s[0]) return null;
  const heading = textOf(h1s[0]);
  const title = doc.querySelector("title")?.textContent ?? "";
  // Both ways: the heading's words are in the <title>, and they are a fair part of it (a site logo set in an
  // <h1> is also in the <title>, as its least part).
  if (!heading || !agreesWith(heading, title)) return null;
  return wordTokens(heading).length * 3 >= wordTokens(title).length ? heading : null;
}

// Structured data sometimes names the topic or the page type instead of the article ("Wikimedia list article"):
// a structured title is trusted when at least half its words are shown in the page's <title> or <h1>.
function agreesWith(title: string, shown: string): boolean {
  const seen = new Set(wordTokens(shown));
  if (seen.size === 0) return true;
  const words = wordTokens(title);
  return words.filter((w) => seen.has(w)).length * 2 >= words.length;
}

/** A title for a page that has none: its host name. */
export function hostTitle(url: string): string {
  try {
    return new URL(url).hostname || url;
  } catch {
    return url;
  }
}

function baseHref(doc: DomDocument, url: string): string {
  return doc.querySelector("base")?.getAttribute("href") || url;
}

/** The document's <title>, cleaned of site-name parts the way Readability cleans it. */
function documentTitle(doc: DomDocument): string | null {
  const titleEl = doc.querySelector("title");
  const raw = titleEl ? textOf(titleEl) : "";
  if (!raw) {
    const h1s = doc.getElementsByTagName("h1");
    return h1s.length === 1 && h1s[0] ? textOf(h1s[0]) || null : null;
  }
  return cleanTitle(raw, doc);
}

const wordCount = (s: string): number => s.split(/\s+/).length;

// A port of Readability 0.6.0 `_getArticleTitle`, so the fallback path titles pages like the main path does:
// "Story | Site" loses the site part, "Site: Story" the prefix, and a too-short result reverts to the original.
function cleanTitle(original: string, doc: DomDocument): string {
  let title = original;
  let hierarchical = false;
  if (/ [|\-\\/>»] /.test(title)) {
    hierarchical = / [\\/>»] /.test(title);
    const separators = Array.from(original.matchAll(/ [|\-\\/>»] /g));
    title = original.substring(0, separators[separators.length - 1]?.index ?? original.length);
    if (wordCount(title) < 3) title = original.replace(/^[^|\-\\/>»]*[|\-\\/>»]/, "");
  } else if (title.includes(": ")) {
    const headings = Array.from(doc.querySelectorAll("h1, h2"));
    if (!headings.some((h) => (h.textContent ?? "").trim() === title.trim())) {
      title = original.substring(original.lastIndexOf(":") + 1);
      if (wordCount(title) < 3) title = original.substring(original.indexOf(":") + 1);
      else if (wordCount(original.substring(0, original.indexOf(":"))) > 5) title = original;
    }
  } else if (title.length > 150 || title.length < 15) {
    const h1s = doc.getElementsByTagName("h1");
    if (h1s.length === 1 && h1s[0]) title = textOf(h1s[0]);
  }
  title = title.trim().replace(/\s{2,}/g, " ");
  const words = wordCount(title);
  if (words <= 4 && (!hierarchical || words !== wordCount(original.replace(/[|\-\\/>»]+/g, "")) - 1)) {
    title = original;
  }
  return title;
}
