// The HTML pipeline, one stage per module, called in order from htmlParts:
//   parse (document.ts) -> metadata (metadata.ts) -> clean (clean.ts) -> score (score.ts) -> readable
//   (readable.ts, lead.ts, structured.ts) -> absolutize (document.ts) -> media (media.ts) -> Markdown
//   (markdown.ts) -> cap (content.ts, in buildExtraction).
// A page the DOM stages cannot handle falls back to its text by pattern (textParts).
import type { DomDocument, DomElement } from "./dom.ts";
import { textOf } from "./dom.ts";
import { absolutizeLinks, baseOf, checkElementBudget, pageElementLimit, parseDocument } from "./document.ts";
import {
  chooseTitle,
  hostTitle,
  markTitleHeading,
  originFavicon,
  readMetadata,
  TITLE_ATTR,
  toIsoDate,
  type PageMetadata,
} from "./metadata.ts";
import { removeJunk } from "./clean.ts";
import { removeAuthorBios } from "./bios.ts";
import { removeBoilerplate } from "./score.ts";
import { stripCaptionCredits } from "./credits.ts";
import { markLead, restoreLead } from "./lead.ts";
import { trimEdges } from "./edges.ts";
import { completeRecipe } from "./recipe.ts";
import { readArticle, type Article } from "./readable.ts";
import { articleBodyElement, coversArticleBody } from "./structured.ts";
import { densestRun, type Run } from "./paragraphs.ts";
import { collectMedia } from "./media.ts";
import { markTaskCheckboxes, toMarkdown } from "./markdown.ts";
import { buildExtraction, textWeight, type ExtractedParts } from "./content.ts";

// An <article> around the title heading shorter than this is a teaser, not a statement of the article.
const MIN_TITLE_ARTICLE = 500;
// Readability's pick must hold at least this share of the densest run of paragraphs (paragraphs.ts).
const RUN_SHARE = 0.5;
import { ExtractError } from "./error.ts";
import { plainTextToMarkdown } from "./text.ts";
import type { Extraction } from "./types.ts";

/** Extraction of an HTML page; throws only ExtractError "empty" or "page_too_complex" (over `maxElements`). */
export function extractFromHtml(html: string, url: string, maxElements = pageElementLimit): Extraction {
  let parts: ExtractedParts;
  try {
    parts = htmlParts(html, url, maxElements);
  } catch (err) {
    if (err instanceof ExtractError) throw err;
    // A DOM step failed on hostile markup (say, nesting deep enough to exhaust the stack): keep the page's text.
    parts = textParts(html, url);
  }
  return buildExtraction(parts);
}

function htmlParts(html: string, url: string, maxElements: number): ExtractedParts {
  // parse
  const doc = parseDocument(html, url);
  checkElementBudget(doc, maxElements);
  const base = baseOf(doc, url);
  // metadata, before anything is removed
  const meta = readMetadata(doc, url);
  // clean, then score
  prepare(doc, true);
  // readable
  const found = findArticle(doc, html, url, meta);
  removeAuthorBios(found.root, meta.authorBios);
  // absolutize, media, Markdown
  absolutizeLinks(found.root, base);
  const media = collectMedia(found.root, base);
  const markdown = completeRecipe(toMarkdown(found.owner, found.root), meta.recipe);
  const article = found.article;
  return {
    url,
    contentType: "article",
    extractor: found.extractor,
    title: chooseTitle(meta, article?.title ?? null) ?? hostTitle(url),
    favicon: meta.favicon,
    byline: meta.byline ?? article?.byline ?? null,
    published: meta.published ?? toIsoDate(article?.published),
    lang: meta.lang,
    siteName: meta.siteName ?? article?.siteName ?? null,
    excerpt: meta.excerpt ?? article?.excerpt ?? null,
    markdown,
    media,
  };
}

// The clean and score stages: furniture named as such, then blocks judged boilerplate by their structure.
function prepare(doc: DomDocument, keepNoscript: boolean): void {
  markTaskCheckboxes(doc, doc.body);
  const removals = removeJunk(doc, { keepNoscript });
  removeBoilerplate(doc, removals);
  stripCaptionCredits(doc);
}

interface Found {
  root: DomElement;
  owner: DomDocument;
  article: Article | null;
  extractor: ExtractedParts["extractor"];
}

// The readable stage. Readability picks the article among the blocks left, and the lead it passed over is put
// back. When the page states its article text (JSON-LD articleBody, itemprop=articleBody) and Readability's pick
// misses most of it, the element holding that text wins; when Readability finds nothing usable, the cleaned body
// is the article.
function findArticle(doc: DomDocument, html: string, url: string, meta: PageMetadata): Found {
  const lead = markLead(doc);
  const run = densestRun(doc);
  // What the page states its article to be: its JSON-LD or microdata articleBody, else, on a page of several
  // <article>s (a feed, an endless scroll), the one holding the title heading.
  const ownArticle = meta.articleBody ? null : titleArticle(doc);
  const stated = meta.articleBody ?? ownArticle?.text ?? null;
  const article = readArticle(doc, pageTextLength(doc));
  const text = article ? textOf(article.element) : "";
  if (article && coversArticleBody(text, stated) && holdsRun(text, run)) {
    restoreLead(doc, lead, article.element);
    trimEdges(article.element);
    return { root: article.element, owner: doc, article, extractor: "readability" };
  }
  // Readability changed the document while it tried, so what else there is is looked for in a fresh parse: the
  // element holding the stated article, else the densest run of paragraphs.
  const owner = parseDocument(html, url);
  markTitleHeading(owner, meta.title);
  prepare(owner, false);
  const element = articleBodyElement(owner, meta.articleBody) ?? (meta.articleBody ? null : titleArticle(owner)?.element);
  if (element) {
    restoreLead(owner, lead, element);
    trimEdges(element);
    return { root: element, owner, article, extractor: "structured" };
  }
  const dense = article ? densestRun(owner) : null;
  if (dense && !holdsRun(text, dense)) {
    restoreLead(owner, lead, dense.element);
    trimEdges(dense.element);
    return { root: dense.element, owner, article, extractor: "paragraphs" };
  }
  if (article) {
    restoreLead(doc, lead, article.element);
    trimEdges(article.element);
    return { root: article.element, owner: doc, article, extractor: "readability" };
  }
  return { root: owner.body, owner, article: null, extractor: "body" };
}

// On a page of several <article>s, the one around the title heading, with its text.
function titleArticle(doc: DomDocument): { element: DomElement; text: string } | null {
  if (doc.body.getElementsByTagName("article").length < 2) return null;
  const element = doc.body.querySelector(`[${TITLE_ATTR}]`)?.closest("article");
  if (!element) return null;
  const text = textOf(element);
  return text.length >= MIN_TITLE_ARTICLE ? { element, text } : null;
}

// Readability's pick holds at least half of the densest run of paragraphs on the page.
function holdsRun(text: string, run: Run | null): boolean {
  return !run || textWeight(text) >= run.weight * RUN_SHARE;
}

// Text a reader would see on the cleaned page; JSON-LD blocks are still there for Readability but are not text.
function pageTextLength(doc: DomDocument): number {
  let length = textOf(doc.body).length;
  for (const script of Array.from(doc.body.getElementsByTagName("script"))) length -= textOf(script).length;
  return length;
}

// The last resort: the page's text by regular expressions, no DOM.
function textParts(html: string, url: string): ExtractedParts {
  const title = decodeEntities(/<title[^>]*>([\s\S]*?)<\/title>/i.exec(html)?.[1] ?? "").replace(/\s+/g, " ").trim();
  const text = decodeEntities(
    html
      .replace(/<(script|style|template|noscript|svg)\b[\s\S]*?<\/\1\s*>/gi, " ")
      .replace(/<head\b[\s\S]*?<\/head\s*>/i, " ")
      .replace(/<\/?(p|div|br|li|h[1-6]|tr|table|section|article|blockquote|pre)\b[^>]*>/gi, "\n\n")
      .replace(/<[^>]*>/g, " "),
  );
  return {
    url,
    contentType: "article",
    extractor: "markup",
    title: title || hostTitle(url),
    favicon: originFavicon(url),
    byline: null,
    published: null,
    lang: null,
    siteName: null,
    excerpt: null,
    markdown: plainTextToMarkdown(text),
    media: [],
  };
}

function decodeEntities(s: string): string {
  const named: Record<string, string> = { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'", nbsp: " " };
  return s.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+);/gi, (whole, code: string) => {
    if (code[0] === "#") {
      const n = code[1] === "x" || code[1] === "X" ? parseInt(code.slice(2), 16) : parseInt(code.slice(1), 10);
      return n > 0 && n <= 0x10ffff ? String.fromCodePoint(n) : whole;
    }
    return named[code.toLowerCase()] ?? whole;
  });
}
