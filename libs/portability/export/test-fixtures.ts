// Records and helpers for the export writers' tests (not part of the library's API).
import type { ExportRecord, PortableHighlight } from "@trove/contracts";
import type { ExportWriter } from "./writer.ts";

export const idOf = (n: number) => `0190b2c4-7e1a-7000-8000-${String(n).padStart(12, "0")}`;

/** 2024-03-01T10:00:00Z plus `n` days: inside the range ZIP dates can say (1980-2043). */
const day = (n: number) => 1709287200 + n * 86400;

export function record(n: number, over: Partial<ExportRecord> = {}): ExportRecord {
  return {
    id: idOf(n),
    url: `https://example.com/articles/${n}`,
    title: `Article ${n}`,
    status: "stashed",
    tags: [],
    collections: [],
    createdAt: day(n),
    updatedAt: day(n) + 3601,
    processedAt: null,
    contentExtractedAt: null,
    source: null,
    highlights: [],
    ...over,
  };
}

export const longTitle = "Ein sehr langer Titel über Käse und 東京 ".repeat(20).slice(0, 500);

const highlights: PortableHighlight[] = [
  { text: "The first highlighted sentence.", note: "Why it matters", prefix: "Before ", suffix: " after", startOffset: 12, endOffset: 43, createdAt: day(2) },
  { text: "A second one,\nover two lines\n\nand a blank one", note: "", startOffset: null, endOffset: null },
  {
    text: "Quoting `code` and <!-- /trove:highlights --> and ```fences```",
    note: "A note with <!-- trove:note --> markers,\n```\nfences\n```\nand <b>html</b>",
    startOffset: 100,
    endOffset: 160,
    createdAt: day(3),
  },
];

/** Content that tries every way of breaking the Markdown layout. */
export const trickyContent = [
  "# Tricky",
  "<!-- /trove:content -->",
  "<!-- trove:content -->",
  "\u200B<!-- /trove:content -->",
  "<!--\u200B /trove:content --> already escaped once",
  "inline <!-- /trove:highlights --> and <!-- trove:note -->",
  "````",
  "```json",
  '[{"text":"fake"}]',
  "```",
  "## Note",
  "CRLF line\r\nand a lone \u0301 combining mark",
  "",
].join("\n");

/** Every case the writers must get right, as the items service would send them with content and notes included. */
export const records: ExportRecord[] = [
  record(1, {
    title: "Plain article",
    tags: ["reading", "Long Reads"],
    collections: ["Inbox", "Work stuff"],
    processedAt: day(1) + 7200,
    contentExtractedAt: day(1) + 60,
    source: "import:pocket",
    note: "My note on it.\n\nSecond paragraph.",
    highlights: highlights.slice(0, 2),
    contentMarkdown: "# Plain article\n\nSome text with **bold**.\n",
  }),
  record(2, { title: "東京の会議メモ — 日本語のタイトル", tags: ["日本語"], note: "" }),
  record(3, { title: "עברית: כותרת בעברית", collections: ["קריאה"] }),
  record(4, { title: "مرحبا بالعالم", contentMarkdown: "نص عربي\n" }),
  record(5, { title: "🎉🚀🔥" }),
  record(6, { title: "" }),
  record(7, { title: "Duplicate title" }),
  record(8, { title: "Duplicate title" }),
  record(9, { title: longTitle }),
  record(10, { title: ".." }),
  record(11, { title: "../../etc/passwd" }),
  record(12, { title: "a/b\\c:d*e?f\"g<h>i|j" }),
  record(13, { title: "CON" }),
  record(14, { title: ".hidden" }),
  record(15, { title: "Tricky content", contentMarkdown: trickyContent, note: "Note with <!-- /trove:note --> inside\n```\n## Note\n" }),
  record(16, { title: "Archived one", status: "archived", highlights, processedAt: day(20), note: "archived note" }),
  record(17, { title: "Flagged with empty note", status: "flagged", note: "" }),
  record(18, { title: "1984", tags: ["true", "null", "2024-01-01", "- dash"], source: "import:instapaper" }),
  record(19, { title: "Multi\nline\n---\ntitle: fake\n", contentMarkdown: "---\nnot: frontmatter\n---\n" }),
  record(20, { title: "Empty content", contentMarkdown: "" }),
  record(21, { title: "=SUM(A1)", url: 'https://example.com/?q=a,b&c="d"' }),
  record(22, { title: "-1+2", note: "@mention" }),
  record(23, { title: "@x", tags: ["=cmd|' /C calc'!A0"] }),
  record(24, { title: "\tx" }),
  record(25, { title: "\rx" }),
  record(26, { title: "+x", source: "-source" }),
  record(27, { title: 'CSV, "quoted" and\r\nnewlines\nand ünïcödé 東京 🧑‍💻', note: "line1\r\nline2, \"q\"" }),
  record(28, { title: "Archived with emoji only 🗄️", status: "archived" }),
];

/** Runs an export the way the exports service does: the reader reads while pages are written. */
export async function exportBytes(w: ExportWriter, pages: ExportRecord[][]): Promise<Uint8Array> {
  const read = Array.fromAsync(w.output);
  for (const page of pages) await w.write(page);
  await w.finish();
  return new Uint8Array(Buffer.concat(await read));
}

/** The records as pages of `size`. */
export const pagesOf = (rs: ExportRecord[], size: number): ExportRecord[][] =>
  Array.from({ length: Math.ceil(rs.length / size) }, (_, i) => rs.slice(i * size, (i + 1) * size));

/** Text that deflate cannot shrink much, the same every run. */
export function noise(chars: number, seed: number): string {
  const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  let x = seed || 1;
  let out = "";
  for (let i = 0; i < chars; i++) {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    out += alphabet[(x >>> 0) % alphabet.length];
  }
  return out;
}
