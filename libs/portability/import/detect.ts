// Which import format a file is, from its bytes: the ZIP's entry names (and one item file's frontmatter), the
// JSON's top-level keys, the CSV's header names, the bookmark file's doctype. The file name and content type only
// decide between nothing and HTML; they are not trusted over the bytes.
import type { ImportFormat } from "@trove/contracts";
import { resolveLimits } from "./limits.ts";
import { isOmnivoreMetadata } from "./omnivore.ts";
import { decodeText } from "./text.ts";
import { isItemMarkdown, splitFrontmatter } from "./trove-markdown.ts";
import { isZip, readZip } from "./zip.ts";

/** How much of a text file detection looks at. */
const headBytes = 64 * 1024;

export function detectFormat(bytes: Uint8Array, fileName?: string, contentType?: string): ImportFormat | undefined {
  if (isZip(bytes)) return detectZip(bytes);
  const head = decodeText(bytes.subarray(0, headBytes)).trimStart();
  const found = head.startsWith("{") || head.startsWith("[") ? detectJson(head) : head.startsWith("<") ? detectHtml(head) : detectCsv(head);
  if (found !== undefined) return found;
  const name = fileName?.toLowerCase() ?? "";
  if (name.endsWith(".html") || name.endsWith(".htm") || contentType?.toLowerCase().startsWith("text/html")) return "netscape_html";
  return undefined;
}

// Detection reads at most this much of one entry; the parser applies the real limits later.
const detectLimits = resolveLimits({ maxZipEntryBytes: 4 * 1024 * 1024, maxZipBytes: 4 * 1024 * 1024 });

function detectZip(bytes: Uint8Array): ImportFormat | undefined {
  const names: string[] = [];
  try {
    // Names only: nothing is inflated.
    readZip(bytes, detectLimits, (name) => (names.push(name), false));
  } catch {
    if (names.length === 0) return undefined;
  }
  if (names.some(isOmnivoreMetadata)) return "omnivore_zip";
  const item = names.find(isItemMarkdown);
  if (item === undefined) return undefined;
  try {
    const read = readZip(bytes, detectLimits, (name) => name === item, 1);
    // A first item file too large to look at: Markdown files in a ZIP are most likely Trove's.
    if (read.failed.some((f) => f.tooLarge)) return "trove_markdown_zip";
    const data = read.entries[0]?.data;
    return data !== undefined && isTroveItemFile(decodeText(data)) ? "trove_markdown_zip" : undefined;
  } catch {
    // Past the detection limits altogether: as above.
    return "trove_markdown_zip";
  }
}

function isTroveItemFile(text: string): boolean {
  const split = splitFrontmatter(text);
  if (split === undefined || !/^url:/m.test(split.yaml)) return false;
  return split.body.includes("<!-- trove:") || (/^status:/m.test(split.yaml) && /^tags:/m.test(split.yaml));
}

/** Where `"key":` first occurs (a key, not a string value), -1 when nowhere. */
function keyAt(text: string, key: string): number {
  return text.search(new RegExp(`"${key}"\\s*:`));
}

function hasKey(text: string, ...keys: string[]): boolean {
  return keys.some((key) => keyAt(text, key) >= 0);
}

function detectJson(head: string): ImportFormat | undefined {
  if (head.startsWith("{")) {
    // The list that comes first is the document's own: a nested record may hold the other key.
    const bookmarks = keyAt(head, "bookmarks");
    const items = keyAt(head, "items");
    if (bookmarks >= 0 && (items < 0 || bookmarks < items)) return "karakeep_json";
    if (items >= 0) return "trove_json";
    return undefined;
  }
  if (hasKey(head, "is_archived", "is_starred", "given_url", "reading_time")) return "wallabag_json";
  if (hasKey(head, "contentExtractedAt") || (hasKey(head, "collections") && hasKey(head, "highlights"))) return "trove_json";
  return undefined;
}

function detectHtml(head: string): ImportFormat | undefined {
  if (/^<!doctype\s+netscape-bookmark-file/i.test(head)) return "netscape_html";
  // Bookmark lists without the doctype, and Pocket's old HTML export (links carrying time_added).
  if (/<dl[\s>]/i.test(head) && /<dt[\s>]/i.test(head)) return "netscape_html";
  if (/<a\s[^>]*\btime_added=/i.test(head)) return "netscape_html";
  return undefined;
}

function detectCsv(head: string): ImportFormat | undefined {
  const firstLine = head.split(/\r?\n/, 1)[0] ?? "";
  const columns = new Set(firstLine.split(",").map((c) => c.trim().replace(/^"|"$/g, "").trim().toLowerCase()));
  if (!columns.has("url")) return undefined;
  if (columns.has("time_added") || (columns.has("title") && columns.has("status") && columns.has("tags"))) return "pocket_csv";
  if (columns.has("folder") && (columns.has("selection") || columns.has("timestamp"))) return "instapaper_csv";
  if (columns.has("location") || columns.has("document tags") || columns.has("saved date")) return "readwise_csv";
  return undefined;
}
