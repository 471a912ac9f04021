// Extraction in this thread: the entry points behind extractHtml and extractText, picking the pipeline by
// content type. The worker task (task.ts) calls these; so do tests and benchmarks that need no pool.
import { ExtractError } from "./error.ts";
import { extractFromHtml } from "./html.ts";
import { cleanPageText } from "./sanitize.ts";
import { extractFromText, type TextKind } from "./text.ts";
import type { ExtractOptions, Extraction } from "./types.ts";

type Kind = "html" | TextKind;

/**
 * Extracts an HTML page (text/html or application/xhtml+xml; no content type means HTML). A text/plain or
 * text/markdown type is handed to extractText, so callers can pass whatever the server answered.
 */
export function extractHtml(html: string, opts: ExtractOptions): Extraction {
  return extract(html, opts, "html");
}

/** Extracts a text/plain or text/markdown page (no content type: Markdown for *.md URLs, else plain text). */
export function extractText(text: string, opts: ExtractOptions): Extraction {
  return extract(text, opts, isMarkdownUrl(opts.url) ? "markdown" : "plain");
}

function extract(raw: string, opts: ExtractOptions, fallback: Kind): Extraction {
  const kind = kindOf(opts.contentType, opts.url, fallback);
  // NUL and lone surrogates are never page text and could not be stored: cleaned before anything reads the page.
  const body = cleanPageText(raw);
  return kind === "html" ? extractFromHtml(body, opts.url, opts.maxElements) : extractFromText(body, opts.url, kind);
}

function kindOf(contentType: string | undefined, url: string, fallback: Kind): Kind {
  const mime = contentType?.split(";")[0]?.trim().toLowerCase();
  if (!mime) return fallback;
  if (mime === "text/html" || mime === "application/xhtml+xml") return "html";
  if (mime === "text/markdown" || mime === "text/x-markdown") return "markdown";
  // Raw file hosts serve README.md and friends as text/plain.
  if (mime === "text/plain") return isMarkdownUrl(url) ? "markdown" : "plain";
  throw new ExtractError("unsupported_content_type", `cannot extract content of type ${mime}`);
}

function isMarkdownUrl(url: string): boolean {
  try {
    return /\.(md|markdown|mdown|mkd)$/i.test(new URL(url).pathname);
  } catch {
    return false;
  }
}
