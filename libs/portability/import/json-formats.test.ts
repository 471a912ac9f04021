// The JSON exports: wallabag, Karakeep and Trove's own. Field mapping, favourite + archived, unsupported kinds,
// unicode, damaged elements, and files cut in the middle (the complete entries before the cut are kept).
import { describe, expect, test } from "bun:test";
import type { ExportRecord } from "@trove/contracts";
import { parseKarakeepJson } from "./karakeep.ts";
import { parseTroveJson } from "./trove-json.ts";
import { parseWallabagJson } from "./wallabag.ts";
import { bytes, fileErrorCode, storable } from "./test-helpers.ts";

const wallabagExport = [
  {
    is_archived: 0,
    is_starred: 1,
    tags: ["reading", { id: 4, label: "Tech", slug: "tech" }, "tech"],
    is_public: false,
    id: 101,
    title: "Un article «très» intéressant, vraiment",
    url: "https://fr.example.org/article?id=1",
    given_url: "https://fr.example.org/article?id=1&utm_source=x",
    content: "<p>Le contenu <b>HTML</b> de l'article.</p>",
    created_at: "2016-09-08T11:55:58+0200",
    updated_at: "2016-09-09T08:00:00+0200",
    mimetype: "text/html",
    language: "fr",
    reading_time: 3,
    domain_name: "fr.example.org",
    preview_picture: "https://fr.example.org/cover.jpg",
    annotations: [
      { id: 1, text: "My comment", quote: "  Le contenu  ", created_at: "2016-09-08T12:00:00+0200", ranges: [{ start: "/p[1]", startOffset: 0, end: "/p[1]", endOffset: 10 }] },
      { id: 2, text: "", quote: "", created_at: "2016-09-08T12:01:00+0200", ranges: [] },
    ],
  },
  { is_archived: 1, is_starred: 1, tags: [], title: "読了した記事 📚", url: "https://jp.example.jp/done", content: "", created_at: "2020-01-02T03:04:05+0000", archived_at: "2020-02-01T00:00:00+0000", annotations: [] },
  { is_archived: true, is_starred: false, tags: [], title: "Archived (booleans)", url: "https://bool.example/", created_at: "bogus" },
  { is_archived: 0, is_starred: 0, title: "No URL here", url: null, created_at: "2020-01-01T00:00:00+0000" },
  "not an object",
];

describe("wallabag JSON", () => {
  const result = parseWallabagJson(bytes(JSON.stringify(wallabagExport, null, 2)));

  test("a starred unread entry: flagged, tags from strings and {label} (deduped), content as HTML, annotation as highlight", () => {
    expect(result.entries[0]).toEqual({
      url: "https://fr.example.org/article?id=1",
      title: "Un article «très» intéressant, vraiment",
      createdAt: Date.UTC(2016, 8, 8, 9, 55, 58) / 1000,
      tags: ["reading", "Tech"],
      status: "flagged",
      highlights: [{ text: "Le contenu", note: "My comment", startOffset: null, endOffset: null, createdAt: Date.UTC(2016, 8, 8, 10) / 1000 }],
      contentHtml: "<p>Le contenu <b>HTML</b> de l'article.</p>",
      source: "import:wallabag",
    });
  });

  test("archived and starred: archived plus the favorite tag; archived_at is the processed time", () => {
    expect(result.entries[1]).toEqual({
      url: "https://jp.example.jp/done",
      title: "読了した記事 📚",
      createdAt: Date.UTC(2020, 0, 2, 3, 4, 5) / 1000,
      tags: ["favorite"],
      status: "archived",
      processedAt: Date.UTC(2020, 1, 1) / 1000,
      source: "import:wallabag",
    });
  });

  test("boolean flags work too; an unreadable date is left out", () => {
    expect(result.entries[2]).toEqual({ url: "https://bool.example/", title: "Archived (booleans)", status: "archived", source: "import:wallabag" });
  });

  test("an entry without URL and a non-object are errors with their positions", () => {
    expect(result.errors).toEqual([
      { index: 3, reason: "no URL", hint: "No URL here" },
      { index: 4, reason: "not an entry (expected a JSON object)" },
    ]);
  });

  test("a file cut in the middle of an entry keeps the complete entries before it", () => {
    const text = JSON.stringify(wallabagExport, null, 2);
    const cut = parseWallabagJson(bytes(text.slice(0, text.indexOf("Archived (booleans)"))));
    expect(cut.entries.map((e) => e.url)).toEqual(["https://fr.example.org/article?id=1", "https://jp.example.jp/done"]);
    expect(cut.entries[0]?.highlights).toHaveLength(1);
    expect(cut.errors).toEqual([{ index: 2, reason: "cut off at the end of the file" }]);
    expect(cut.truncated).toBe("the JSON file ends early (cut short?)");
  });

  test("one damaged element in the middle: the others are read, that one is an error", () => {
    const text = `[{"url":"https://a.example/","title":"A"},{"url":"https://b.example/","title":"B" oops},{"url":"https://c.example/","title":"C"}]`;
    const read = parseWallabagJson(bytes(text));
    expect(read.entries.map((e) => e.title)).toEqual(["A", "C"]);
    expect(read.errors).toEqual([{ index: 1, reason: "not valid JSON" }]);
    expect(read.truncated).toBeUndefined();
  });

  test("the same URL twice is two entries (the items service dedupes)", () => {
    const twice = [
      { url: "https://d.example/", title: 'Say "hi", twice', is_archived: 0 },
      { url: "https://d.example/", title: "Second save", is_archived: 1 },
    ];
    expect(parseWallabagJson(bytes(JSON.stringify(twice))).entries.map((e) => [e.url, e.title, e.status])).toEqual([
      ["https://d.example/", 'Say "hi", twice', "stashed"],
      ["https://d.example/", "Second save", "archived"],
    ]);
  });

  test("not JSON at all is corrupt_file; JSON of another shape is unsupported_format", () => {
    expect(fileErrorCode(() => parseWallabagJson(bytes("hello, world")))).toBe("corrupt_file");
    expect(fileErrorCode(() => parseWallabagJson(bytes('{"something": "else"}')))).toBe("unsupported_format");
  });

  test("NUL characters and lone surrogates (as JSON escapes) are cleaned", () => {
    const text = String.raw`[{"url":"https://n.example/","title":"a\u0000b\ud800","content":"<p>\u0000x</p>","tags":["t\udc00"],"annotations":[{"quote":"q\u0000\ud83d","text":"n\u0000"}]}]`;
    const [entry] = parseWallabagJson(bytes(text)).entries;
    expect(entry).toMatchObject({ title: "ab\ufffd", contentHtml: "<p>x</p>", tags: ["t\ufffd"] });
    expect(entry?.highlights?.[0]).toMatchObject({ text: "q\ufffd", note: "n" });
    expect(storable(entry)).toBe(true);
  });
});

const karakeepExport = {
  bookmarks: [
    { createdAt: 1_715_000_000, title: "Karakeep docs", tags: ["self-hosted", "Docs", "docs"], lists: ["l-child", "l-smart", "l-gone"], content: { type: "link", url: "https://docs.karakeep.example/" }, note: "Read the API part", customMetadata: null, archived: false },
    { createdAt: 1_715_000_100, title: "A quick thought", tags: [], lists: [], content: { type: "text", text: "Remember to buy milk" }, note: null, archived: false },
    { createdAt: 1_715_000_200, title: "scan.pdf", tags: [], content: null, note: null, archived: false },
    { createdAt: "2024-05-06T12:00:00.000Z", title: null, tags: [], content: { type: "link", url: "https://fav.example/" }, note: null, archived: true, favourited: true },
    { createdAt: 1_715_000_400, title: "Favourite only", tags: [], content: { type: "link", url: "https://fav.example/only" }, note: "", favourited: true },
    { createdAt: 1_715_000_500, title: "Broken link", tags: [], content: { type: "link", url: "not a url" }, note: null },
  ],
  lists: [
    { id: "l-parent", name: "Reading", description: null, icon: "📚", type: "manual", query: null, parentId: null },
    { id: "l-child", name: "技术", description: null, icon: "💻", type: "manual", query: null, parentId: "l-parent" },
    { id: "l-smart", name: "Recent", description: null, icon: "⏱️", type: "smart", query: "after:2024-01-01", parentId: null },
  ],
};

describe("Karakeep JSON", () => {
  const result = parseKarakeepJson(bytes(JSON.stringify(karakeepExport)));

  test("a link bookmark: tags deduped, note, lists as collection paths (smart and unknown lists dropped)", () => {
    expect(result.entries[0]).toEqual({
      url: "https://docs.karakeep.example/",
      title: "Karakeep docs",
      createdAt: 1_715_000_000,
      tags: ["self-hosted", "Docs"],
      collections: ["Reading / 技术"],
      status: "stashed",
      note: "Read the API part",
      source: "import:karakeep",
    });
  });

  test("text notes and uploaded files are errors saying why; a bad link is an error too", () => {
    expect(result.errors).toEqual([
      { index: 1, reason: "a text note, not a link: only links are imported", hint: "A quick thought" },
      { index: 2, reason: "an uploaded file or other non-link bookmark (exported without a URL): only links are imported", hint: "scan.pdf" },
      { index: 5, reason: "not a valid URL", hint: "not a url" },
    ]);
  });

  test("archived + favourited: archived with the favorite tag; ISO createdAt; favourited alone: flagged", () => {
    expect(result.entries[1]).toEqual({ url: "https://fav.example/", createdAt: Date.UTC(2024, 4, 6, 12) / 1000, tags: ["favorite"], status: "archived", source: "import:karakeep" });
    expect(result.entries[2]).toMatchObject({ url: "https://fav.example/only", status: "flagged" });
    expect(result.entries[2]?.note).toBeUndefined();
  });

  test("duplicates are kept; quotes and backslashes in titles survive", () => {
    const link = (title: string) => ({ createdAt: 1, title, tags: [], content: { type: "link", url: "https://dup.example/" }, note: null });
    const read = parseKarakeepJson(bytes(JSON.stringify({ bookmarks: [link('A "quoted" \\ title'), link("again")] })));
    expect(read.entries.map((e) => [e.url, e.title])).toEqual([
      ["https://dup.example/", 'A "quoted" \\ title'],
      ["https://dup.example/", "again"],
    ]);
  });

  test("a file cut inside the bookmarks keeps the whole ones (and the lists are lost with the cut)", () => {
    const text = JSON.stringify(karakeepExport);
    const cut = parseKarakeepJson(bytes(text.slice(0, text.indexOf("Favourite only"))));
    expect(cut.entries.map((e) => e.url)).toEqual(["https://docs.karakeep.example/", "https://fav.example/"]);
    expect(cut.entries[0]?.collections).toBeUndefined();
    expect(cut.truncated).toBeDefined();
  });

  test("a damaged bookmark with the lists intact after it: lists still name the collections", () => {
    const text = `{"bookmarks":[{"createdAt":1,"title":"ok","tags":[],"lists":["l-parent"],"content":{"type":"link","url":"https://ok.example/"}},{"broken": tru}],"lists":${JSON.stringify(karakeepExport.lists)}}`;
    const read = parseKarakeepJson(bytes(text));
    expect(read.entries).toEqual([{ url: "https://ok.example/", title: "ok", createdAt: 1, collections: ["Reading"], status: "stashed", source: "import:karakeep" }]);
    expect(read.errors).toEqual([{ index: 1, reason: "not valid JSON" }]);
  });
});

const record = (over: Partial<ExportRecord>): ExportRecord => ({
  id: "01J0000000000000000000000A",
  url: "https://trove.example/a",
  title: "A",
  status: "stashed",
  tags: [],
  collections: [],
  createdAt: 1_700_000_000,
  updatedAt: 1_700_000_100,
  processedAt: null,
  contentExtractedAt: null,
  source: null,
  highlights: [],
  ...over,
});

describe("Trove JSON", () => {
  const file = {
    format: "trove.export.v1",
    exportedAt: "2026-01-01T00:00:00Z",
    items: [
      record({
        url: "https://trove.example/a",
        title: "Ünïcödé — 标题 — عنوان",
        status: "archived",
        tags: ["rust", "Rust", "async"],
        collections: ["Work / Projects"],
        processedAt: 1_700_000_500,
        contentExtractedAt: 1_700_000_050,
        source: "browser",
        note: "My note\n\nsecond paragraph",
        highlights: [
          { text: "a phrase", note: "why", prefix: "before ", suffix: " after", startOffset: 10, endOffset: 18, createdAt: 1_700_000_200 },
          { text: "no offsets", note: "", startOffset: null, endOffset: null },
        ],
        contentMarkdown: "# Heading\n\nSome a phrase in text.",
      }),
      record({ url: "https://trove.example/b", title: "B", status: "flagged", source: null }),
      record({ url: "javascript:alert(1)", title: "evil" }),
      { ...record({ url: "https://trove.example/c" }), status: "bogus" as never },
    ],
  };
  const result = parseTroveJson(bytes(JSON.stringify(file)));

  test("a full record maps field for field, its own source kept, highlights with offsets", () => {
    expect(result.entries[0]).toEqual({
      url: "https://trove.example/a",
      title: "Ünïcödé — 标题 — عنوان",
      createdAt: 1_700_000_000,
      tags: ["rust", "async"],
      collections: ["Work / Projects"],
      status: "archived",
      processedAt: 1_700_000_500,
      note: "My note\n\nsecond paragraph",
      highlights: [
        { text: "a phrase", note: "why", prefix: "before ", suffix: " after", startOffset: 10, endOffset: 18, createdAt: 1_700_000_200 },
        { text: "no offsets", note: "", startOffset: null, endOffset: null },
      ],
      contentMarkdown: "# Heading\n\nSome a phrase in text.",
      source: "browser",
    });
  });

  test("a null source is left out; an unknown status is left out; a bad URL is an error", () => {
    expect(result.entries[1]).toEqual({ url: "https://trove.example/b", title: "B", createdAt: 1_700_000_000, status: "flagged" });
    expect(result.entries[2]?.status).toBeUndefined();
    expect(result.errors).toEqual([{ index: 2, reason: "not a web address (javascript: URL)", hint: "javascript:alert(1)" }]);
  });

  test("two records of the same URL are two entries", () => {
    const read = parseTroveJson(bytes(JSON.stringify({ items: [record({ title: "one" }), record({ title: "two" })] })));
    expect(read.entries.map((e) => [e.url, e.title])).toEqual([
      ["https://trove.example/a", "one"],
      ["https://trove.example/a", "two"],
    ]);
  });

  test("a bare array of records reads too; a file cut mid-record keeps the records before", () => {
    expect(parseTroveJson(bytes(JSON.stringify([record({})]))).entries.map((e) => e.url)).toEqual(["https://trove.example/a"]);
    const text = JSON.stringify(file);
    const cut = parseTroveJson(bytes(text.slice(0, text.indexOf('"https://trove.example/c"'))));
    expect(cut.entries.map((e) => e.url)).toEqual(["https://trove.example/a", "https://trove.example/b"]);
    expect(cut.errors.map((e) => e.index)).toEqual([2, 3]);
    expect(cut.truncated).toBeDefined();
  });

  test("content Markdown is kept exactly as written (leading indentation included): offsets point into it", () => {
    const markdown = "    indented code first\n\ntext after  ";
    const [entry] = parseTroveJson(bytes(JSON.stringify({ items: [record({ contentMarkdown: markdown })] }))).entries;
    expect(entry?.contentMarkdown).toBe(markdown);
    const [blank] = parseTroveJson(bytes(JSON.stringify({ items: [record({ contentMarkdown: " \n " })] }))).entries;
    expect(blank?.contentMarkdown).toBeUndefined();
  });

  test("highlights with broken offsets keep their text, offsets become null; empty-text highlights are dropped", () => {
    const bad = record({
      highlights: [
        { text: "reversed", note: "", startOffset: 20, endOffset: 5 },
        { text: "negative", note: "", startOffset: -1, endOffset: 5 },
        { text: "   ", note: "blank", startOffset: 0, endOffset: 3 },
      ],
    });
    const [entry] = parseTroveJson(bytes(JSON.stringify({ items: [bad] }))).entries;
    expect(entry?.highlights).toEqual([
      { text: "reversed", note: "", startOffset: null, endOffset: null },
      { text: "negative", note: "", startOffset: null, endOffset: null },
    ]);
  });
});
