// Finding the article with Mozilla Readability, run on the linkedom document.
import { Readability } from "@mozilla/readability";
import type { DomDocument, DomElement } from "./dom.ts";
import { textOf } from "./dom.ts";

export interface Article {
  element: DomElement;
  title: string | null;
  byline: string | null;
  excerpt: string | null;
  siteName: string | null;
  published: string | null;
  lang: string | null;
}

// Readability's answer is "far too little" when it keeps under this share of the page's text and is short in
// absolute terms: it latched onto a caption or teaser of a page whose text is elsewhere (pages without
// paragraph markup, lists, forums). A short page kept whole passes, so does a long article on a busy page.
const MIN_SHARE = 0.2;
const SHORT_ARTICLE_CHARS = 500;

/** The article of `doc` (mutating it), or null when Readability finds none or far too little. */
export function readArticle(doc: DomDocument, pageTextLength: number): Article | null {
  let parsed: ReturnType<Readability<DomElement>["parse"]>;
  try {
    // keepClasses keeps language-x and friends on code blocks; the serializer hands back the element itself
    // instead of an HTML string that would have to be parsed again.
    parsed = new Readability<DomElement>(doc as never, {
      keepClasses: true,
      serializer: (node) => node as unknown as DomElement,
    }).parse();
  } catch {
    // Readability is not written for hostile markup (very deep trees); the caller falls back to the body.
    return null;
  }
  if (!parsed?.content) return null;
  const length = textOf(parsed.content).length;
  if (length === 0) return null;
  if (length < SHORT_ARTICLE_CHARS && length < pageTextLength * MIN_SHARE) return null;
  return {
    element: parsed.content,
    title: orNull(parsed.title),
    byline: orNull(parsed.byline),
    excerpt: orNull(parsed.excerpt),
    siteName: orNull(parsed.siteName),
    published: orNull(parsed.publishedTime),
    lang: orNull(parsed.lang),
  };
}

function orNull(value: string | null | undefined): string | null {
  const s = value?.replace(/\s+/g, " ").trim();
  return s ? s : null;
}
