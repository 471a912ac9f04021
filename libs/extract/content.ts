// Assembling an Extraction: the Markdown capped, the frontmatter, the single "main" item and its media.
import { ExtractError } from "./error.ts";
import type { Extraction, MediaEntry } from "./types.ts";
import { capMarkdown } from "./truncate.ts";

/**
 * Cap on stored Markdown, in UTF-8 bytes: 512 KiB. Articles render to far less: the corpus median is about
 * 8 KiB and its largest page, Wikipedia's "New Zealand" with every link URL spelled out, 297 KiB. So the cap
 * bites only on dumps (logs, endless lists, generated pages), while one copy of an item's Markdown, JSON-escaped,
 * still fits a default 1 MB NATS message, and a reader, the search indexer or an AI tool reading the feed gets a
 * bounded document per item.
 */
export const contentCapBytes = 512 * 1024;

/** What an extractor found, before capping: the Extraction's metadata fields plus how it was found. */
export type ExtractedParts = Pick<Extraction, "title" | "favicon" | "byline" | "published" | "lang" | "siteName" | "excerpt" | "markdown"> & {
  url: string;
  contentType: "article" | "text";
  /** How the content was found, kept in the item's meta for diagnosis: "readability", "body" (Readability found
   * nothing usable), "structured" (the element holding the page's stated articleBody), "paragraphs" (the densest run of paragraphs,
   * when Readability's pick holds too little of it), "markup" (the DOM failed; text by pattern), "plain", "markdown". */
  extractor: "readability" | "structured" | "paragraphs" | "body" | "markup" | "plain" | "markdown";
  media: MediaEntry[];
};

/** The Extraction for `parts`; throws ExtractError "empty" when there is nothing to store. */
export function buildExtraction(raw: ExtractedParts, capBytes = contentCapBytes): Extraction {
  const parts = composed(raw);
  if (!parts.markdown.trim()) throw new ExtractError("empty", "the page has no text");
  const { markdown, truncated } = capMarkdown(parts.markdown, capBytes);
  // Images past the cut are not part of the stored content.
  const media = truncated ? parts.media.filter((m) => markdown.includes(m.url)) : parts.media;
  // Every key is always present (null when unknown), so consumers see one shape.
  const frontmatter: Record<string, unknown> = {
    title: parts.title,
    source: parts.url,
    content_type: parts.contentType,
    byline: parts.byline,
    published: parts.published,
    lang: parts.lang,
    site_name: parts.siteName,
  };
  const meta = { wordCount: countWords(markdown), truncated, extractor: parts.extractor };
  return {
    title: parts.title,
    favicon: parts.favicon,
    byline: parts.byline,
    published: parts.published,
    lang: parts.lang,
    siteName: parts.siteName,
    excerpt: parts.excerpt,
    markdown,
    content: {
      schemaVersion: 2,
      meta: { frontmatter },
      items: { main: { format: "markdown", markdown, meta } },
      media,
    },
    size: new TextEncoder().encode(markdown).length,
    truncated,
  };
}

/**
 * The text fields in Unicode normalization form C, as the web's character model asks: pages mix composed and
 * decomposed spellings of one letter (Bengali য় as one code point or two, "é" as e + accent), and search, quoting
 * and highlight anchors should see one spelling.
 */
function composed(parts: ExtractedParts): ExtractedParts {
  const nfc = <T extends string | null>(s: T): T => (s === null ? s : (s.normalize("NFC") as T));
  return {
    ...parts,
    title: nfc(parts.title),
    byline: nfc(parts.byline),
    siteName: nfc(parts.siteName),
    excerpt: nfc(parts.excerpt),
    markdown: nfc(parts.markdown),
  };
}

// Scripts written without spaces between words: each character is counted as a word.
const UNSPACED = "\\p{Script=Han}\\p{Script=Hiragana}\\p{Script=Katakana}";
const WORD = new RegExp(`[${UNSPACED}]|(?:(?![${UNSPACED}])[\\p{L}\\p{N}])+`, "gu");

/** The words of a text, lower-cased: runs of letters and digits, each Han or kana character on its own. */
export function wordTokens(text: string): string[] {
  return text.toLowerCase().match(WORD) ?? [];
}

const DENSE = new RegExp(`[${UNSPACED}\\p{Script=Hangul}]`, "gu");

/**
 * The length of a text as a measure of how much it says, for thresholds written in Latin-script characters: a
 * Han, kana or Hangul character says about as much as three letters, so a 40-character Chinese sentence weighs
 * as much as a 120-character English one.
 */
export function textWeight(text: string): number {
  return text.length + 2 * (text.match(DENSE)?.length ?? 0);
}

/** Words of Markdown as read: link and image destinations are not words. */
function countWords(markdown: string): number {
  return wordTokens(markdown.replace(/\]\([^)\s]*(?:\s+"[^"]*")?\)/g, "]")).length;
}
