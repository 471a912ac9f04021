// text/plain and text/markdown pages. Markdown is kept as written (its own front matter read and removed, relative
// URLs made absolute); plain text is escaped so that it reads the same once rendered as Markdown.
import { buildExtraction } from "./content.ts";
import { resolveUrl } from "./document.ts";
import { closesFence, fenceOpening, mapProseLines, type Fence } from "./fence.ts";
import { escapeMarkdown } from "./markdown.ts";
import { webUrl } from "./media.ts";
import { hostTitle, originFavicon, toIsoDate } from "./metadata.ts";
import type { Extraction, MediaEntry } from "./types.ts";

export type TextKind = "plain" | "markdown";

/** Extraction of a plain-text or Markdown page; throws only ExtractError "empty". */
export function extractFromText(raw: string, url: string, kind: TextKind): Extraction {
  const text = normalise(raw);
  const markdownPage = kind === "markdown";
  const { body, fields } = markdownPage ? splitFrontMatter(text) : { body: text, fields: new Map<string, string>() };
  const markdown = markdownPage ? absolutizeMarkdown(body.trim(), url) : plainTextToMarkdown(body);
  return buildExtraction({
    url,
    contentType: "text",
    extractor: kind,
    title: fields.get("title") || (markdownPage ? markdownTitle(body) : null) || firstLine(body) || fileTitle(url),
    favicon: originFavicon(url),
    byline: fields.get("author") || null,
    published: toIsoDate(fields.get("date") ?? fields.get("published")),
    lang: fields.get("lang") || fields.get("language") || null,
    siteName: null,
    excerpt: excerptOf(body, kind),
    markdown,
    media: markdownPage ? markdownMedia(markdown) : [],
  });
}

// BOM, Windows and old-Mac line ends, and control characters other than tab and newline.
function normalise(text: string): string {
  return text
    .replace(/^\uFEFF/, "")
    .replace(/\r\n?/g, "\n")
    .replace(/[\u0000-\u0008\u000B\u000C\u000E-\u001F\u007F]/g, "");
}

/**
 * Plain text as Markdown: paragraphs stay paragraphs, Markdown syntax characters are escaped, and leading
 * indentation is dropped (four spaces would turn a line into a code block). Lines inside a paragraph stay as
 * they are and render joined, which reflows hard-wrapped text; column layouts (ASCII tables) do not survive.
 */
export function plainTextToMarkdown(text: string): string {
  return normalise(text)
    .split(/\n[ \t]*\n\s*/)
    .map((para) =>
      para
        .split("\n")
        .map((line) => escapeMarkdown(line.replace(/\s+/g, " ").trim()))
        .filter(Boolean)
        .join("\n"),
    )
    .filter(Boolean)
    .join("\n\n");
}

// YAML front matter ("---" ... "---" at the very top): simple "key: value" lines are read, the block removed.
function splitFrontMatter(text: string): { body: string; fields: Map<string, string> } {
  const fields = new Map<string, string>();
  const m = /^---[ \t]*\n([\s\S]*?)\n(?:---|\.\.\.)[ \t]*(?:\n|$)/.exec(text);
  if (!m) return { body: text, fields };
  for (const line of (m[1] ?? "").split("\n")) {
    const kv = /^([A-Za-z_][\w-]*)\s*:\s*(.*)$/.exec(line);
    const value = kv?.[2]?.trim().replace(/^(["'])(.*)\1$/, "$2");
    if (kv?.[1] && value) fields.set(kv[1].toLowerCase(), value);
  }
  return { body: text.slice(m[0].length), fields };
}

function markdownTitle(body: string): string | null {
  let first: string | null = null;
  const lines = body.split("\n");
  let open: Fence | null = null;
  for (const [i, line] of lines.entries()) {
    if (open) {
      if (closesFence(line, open)) open = null;
      continue;
    }
    open = fenceOpening(line);
    if (open) continue;
    const atx = /^ {0,3}(#{1,6})\s+(.*?)(?:\s+#+)?\s*$/.exec(line);
    const setext = /^ {0,3}(=+|-+)\s*$/.test(lines[i + 1] ?? "") && line.trim() && !/^\s*[-*+>]/.test(line);
    const heading = atx?.[2] ?? (setext ? line.trim() : null);
    if (!heading) continue;
    const level = atx ? (atx[1]?.length ?? 1) : (lines[i + 1] ?? "").trim().startsWith("=") ? 1 : 2;
    if (level === 1) return heading;
    first ??= heading;
  }
  return first;
}

function firstLine(body: string): string | null {
  const line = body.split("\n").find((l) => l.trim())?.replace(/^[#>\s*-]+/, "").trim();
  return line && line.length <= 150 ? line : null;
}

// "notes/release-2.txt" -> "release-2"; an address without a file name gives its host.
function fileTitle(url: string): string {
  try {
    const name = decodeURIComponent(new URL(url).pathname.split("/").pop() ?? "").replace(/\.[a-z0-9]+$/i, "");
    return name || hostTitle(url);
  } catch {
    return hostTitle(url);
  }
}

function excerptOf(body: string, kind: TextKind): string | null {
  const paragraphs = body.split(/\n\s*\n/).map((p) => p.replace(/\s+/g, " ").trim());
  // In Markdown, the first paragraph of prose: not a heading, code, list, quote, table or image.
  const notProse = /^(#|```|~~~|[-*+] |\d+\. |>|\||!\[)/;
  const first = paragraphs.find((p) => p.length > 0 && (kind === "plain" || !notProse.test(p)));
  if (!first) return null;
  if (first.length <= 300) return first;
  const cut = first.slice(0, 300);
  return `${cut.slice(0, Math.max(cut.lastIndexOf(" "), 200))}…`;
}

// Inline image and link destinations: ![alt](dest "title") and [text](dest "title").
const IMAGE = /!\[([^\]]*)\]\(\s*<?([^\s)>]+)>?((?:\s+"[^"]*")?)\s*\)/g;
const LINK = /(\]\()(\s*<?)([^\s)>]+)(>?(?:\s+"[^"]*")?\s*\))/g;

// Relative destinations become absolute; images get the same https URL their media entry has.
function absolutizeMarkdown(markdown: string, url: string): string {
  return mapProseLines(markdown, (line) =>
    line
      .replace(IMAGE, (whole, alt: string, dest: string, title: string) => {
        const resolved = webUrl(dest, url);
        return resolved ? `![${alt}](${resolved}${title})` : whole;
      })
      .replace(LINK, (whole, open: string, lead: string, dest: string, rest: string) => {
        if (/^(#|[a-z][a-z0-9+.-]*:)/i.test(dest)) return whole; // fragments and absolute URLs stay
        const resolved = resolveUrl(dest, url);
        return resolved ? `${open}${lead}${resolved}${rest}` : whole;
      }),
  ).join("\n");
}

// Images of a Markdown page in order, deduplicated; only web images (after absolutizeMarkdown: https ones).
function markdownMedia(markdown: string): MediaEntry[] {
  const media: MediaEntry[] = [];
  const seen = new Set<string>();
  mapProseLines(markdown, (line) => {
    for (const m of line.matchAll(IMAGE)) {
      const url = m[2] ?? "";
      if (!url.startsWith("https://") || seen.has(url)) continue;
      seen.add(url);
      const title = (m[3] ?? "").trim().replace(/^"|"$/g, "");
      media.push({ id: `m${media.length + 1}`, url, alt: (m[1] ?? "").trim(), title });
    }
    return line;
  });
  return media;
}
