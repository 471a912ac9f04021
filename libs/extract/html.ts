// The HTML pipeline: parse, refuse a page over the element budget, read metadata, remove furniture, find the
// article (Readability, else the cleaned body), pick images, render Markdown.
import type { DomDocument, DomElement } from "./dom.ts";
import { textOf } from "./dom.ts";
import { absolutizeLinks, baseOf, checkElementBudget, pageElementLimit, parseDocument } from "./document.ts";
import { hostTitle, originFavicon, readMetadata, toIsoDate } from "./metadata.ts";
import { removeJunk } from "./clean.ts";
import { readArticle } from "./readable.ts";
import { collectMedia } from "./media.ts";
import { markTaskCheckboxes, toMarkdown } from "./markdown.ts";
import { buildExtraction, type ExtractedParts } from "./content.ts";
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
  const doc = parseDocument(html, url);
  checkElementBudget(doc, maxElements);
  const base = baseOf(doc, url);
  const meta = readMetadata(doc, url);
  markTaskCheckboxes(doc, doc.body);
  removeJunk(doc, { keepNoscript: true });
  const article = readArticle(doc, pageTextLength(doc));

  let root: DomElement;
  let owner: DomDocument;
  if (article) {
    root = article.element;
    owner = doc;
  } else {
    // Readability changed the document while it tried, so the fallback starts from a fresh parse.
    owner = parseDocument(html, url);
    markTaskCheckboxes(owner, owner.body);
    removeJunk(owner, { keepNoscript: false });
    root = owner.body;
  }
  absolutizeLinks(root, base);
  const media = collectMedia(root, base);
  const markdown = toMarkdown(owner, root);

  return {
    url,
    contentType: "article",
    extractor: article ? "readability" : "body",
    title: article?.title ?? meta.title ?? hostTitle(url),
    favicon: meta.favicon,
    byline: article?.byline ?? meta.byline,
    published: toIsoDate(article?.published) ?? meta.published,
    lang: meta.lang,
    siteName: article?.siteName ?? meta.siteName,
    excerpt: article?.excerpt ?? meta.excerpt,
    markdown,
    media,
  };
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
