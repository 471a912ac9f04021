// The ZIP exports: Omnivore's (metadata + content + highlights) and Trove's Markdown. Entries, highlights, notes,
// the marker layout agreed with the export writer, damaged members and archives cut short.
import { describe, expect, test } from "bun:test";
import { strToU8, zipSync, type Zippable } from "fflate";
import { resolveLimits } from "./limits.ts";
import { parseOmnivoreHighlights } from "./omnivore-highlights.ts";
import { parseOmnivoreZip } from "./omnivore.ts";
import { centralDirectoryAt, fileErrorCode, storable } from "./test-helpers.ts";
import { parseTroveMarkdownZip, troveMarkdownMarkers as m } from "./trove-markdown.ts";

const json = (value: unknown) => strToU8(JSON.stringify(value, null, 2));

const omnivoreItems = [
  {
    id: "6f1c0b8e-0000-4000-8000-000000000001",
    slug: "how-to-read-a-paper-18c1a2b3c4d",
    title: "How to Read a Paper, \"Properly\"",
    description: "A three-pass approach",
    author: "S. Keshav",
    url: "https://papers.example.edu/read.pdf",
    state: "SUCCEEDED",
    readingProgress: 40,
    thumbnail: null,
    labels: ["research", "Research", "pdf"],
    savedAt: "2023-03-01T08:30:00.000Z",
    updatedAt: "2023-03-02T08:30:00.000Z",
    publishedAt: null,
  },
  {
    id: "6f1c0b8e-0000-4000-8000-000000000002",
    slug: "日本の記事-18c1a2b3c4e",
    title: "日本の記事 🍣",
    url: "https://news.example.jp/article/1",
    state: "ARCHIVED",
    labels: [],
    savedAt: "2023-04-01T00:00:00.000Z",
  },
  { id: "6f1c0b8e-0000-4000-8000-000000000003", slug: "no-url", title: "Missing URL", state: "SUCCEEDED", labels: [], savedAt: "2023-04-02T00:00:00.000Z" },
];

const highlightsMd = [
  "> The first pass gives a bird's-eye view. ",
  "",
  "#method #reading",
  "",
  "Try this on the next paper.",
  "",
  "> A quote of two paragraphs,",
  "> ",
  "its second paragraph unmarked.",
  "",
  "> A last one without a note",
].join("\n");

function omnivoreZip(extra: Zippable = {}): Zippable {
  return {
    "metadata_0_to_2.json": json(omnivoreItems.slice(0, 2)),
    "content/how-to-read-a-paper-18c1a2b3c4d.html": strToU8("<article><h1>How to Read a Paper</h1><p>Three passes.</p></article>"),
    "highlights/how-to-read-a-paper-18c1a2b3c4d.md": strToU8(highlightsMd),
    "content/日本の記事-18c1a2b3c4e.html": strToU8("<p>本文です。</p>"),
    "metadata_2_to_3.json": json(omnivoreItems.slice(2)),
    ...extra,
  };
}

describe("Omnivore ZIP", () => {
  const result = parseOmnivoreZip(zipSync(omnivoreZip()));

  test("an item: title, labels as tags (deduped), savedAt, its page as contentHtml, highlights with notes", () => {
    expect(result.entries[0]).toEqual({
      url: "https://papers.example.edu/read.pdf",
      title: 'How to Read a Paper, "Properly"',
      createdAt: Date.UTC(2023, 2, 1, 8, 30) / 1000,
      tags: ["research", "pdf"],
      status: "stashed",
      highlights: [
        { text: "The first pass gives a bird's-eye view.", note: "Try this on the next paper.", startOffset: null, endOffset: null },
        { text: "A quote of two paragraphs,\n\nits second paragraph unmarked.", note: "", startOffset: null, endOffset: null },
        { text: "A last one without a note", note: "", startOffset: null, endOffset: null },
      ],
      contentHtml: "<article><h1>How to Read a Paper</h1><p>Three passes.</p></article>",
      source: "import:omnivore",
    });
  });

  test("ARCHIVED is archived; a unicode slug finds its content; no highlights file means none", () => {
    expect(result.entries[1]).toEqual({
      url: "https://news.example.jp/article/1",
      title: "日本の記事 🍣",
      createdAt: Date.UTC(2023, 3, 1) / 1000,
      status: "archived",
      contentHtml: "<p>本文です。</p>",
      source: "import:omnivore",
    });
  });

  test("items are numbered across metadata files; an item without URL is an error", () => {
    expect(result.errors).toEqual([{ index: 2, reason: "no URL", hint: "Missing URL" }]);
    expect(result.truncated).toBeUndefined();
  });

  test("two items of the same URL (saved twice, two slugs) are two entries, each with its own page", () => {
    const twice = [
      { slug: "first-save", title: "First", url: "https://same.example/", state: "SUCCEEDED", labels: [], savedAt: "2023-01-01T00:00:00Z" },
      { slug: "second-save", title: "Second", url: "https://same.example/", state: "ARCHIVED", labels: [], savedAt: "2023-01-02T00:00:00Z" },
    ];
    const read = parseOmnivoreZip(
      zipSync({ "metadata_0_to_2.json": json(twice), "content/first-save.html": strToU8("<p>1</p>"), "content/second-save.html": strToU8("<p>2</p>") }),
    );
    expect(read.entries.map((e) => [e.url, e.title, e.status, e.contentHtml])).toEqual([
      ["https://same.example/", "First", "stashed", "<p>1</p>"],
      ["https://same.example/", "Second", "archived", "<p>2</p>"],
    ]);
  });

  test("a re-zipped export (everything inside a folder) reads the same", () => {
    const nested = Object.fromEntries(Object.entries(omnivoreZip()).map(([name, data]) => [`Omnivore-export/${name}`, data]));
    expect(parseOmnivoreZip(zipSync(nested)).entries).toEqual(result.entries);
  });

  test("a damaged metadata file: its items are an error, the other file's items are read", () => {
    const read = parseOmnivoreZip(zipSync(omnivoreZip({ "metadata_2_to_3.json": strToU8("{ not json at all") })));
    expect(read.entries).toHaveLength(2);
    expect(read.errors).toHaveLength(1);
    expect(read.errors[0]).toMatchObject({ index: 2, hint: "metadata_2_to_3.json" });
    expect(read.errors[0]?.reason).toStartWith("metadata_2_to_3.json could not be read: not valid JSON");
  });

  test("an archive cut inside a page: the entries listed before are read, the cut page reported, truncated", () => {
    const files = omnivoreZip({ "content/how-to-read-a-paper-18c1a2b3c4d.html": strToU8(`<p>${"long page text ".repeat(5000)}</p>`) });
    delete files["metadata_2_to_3.json"];
    const ordered: Zippable = {
      "metadata_0_to_2.json": files["metadata_0_to_2.json"] as Uint8Array,
      "content/日本の記事-18c1a2b3c4e.html": files["content/日本の記事-18c1a2b3c4e.html"] as Uint8Array,
      "content/how-to-read-a-paper-18c1a2b3c4d.html": files["content/how-to-read-a-paper-18c1a2b3c4d.html"] as Uint8Array,
    };
    const whole = zipSync(ordered, { level: 0 });
    const read = parseOmnivoreZip(whole.subarray(0, Math.floor(whole.length * 0.8)));
    expect(read.entries.map((e) => [e.url, e.contentHtml !== undefined])).toEqual([
      ["https://papers.example.edu/read.pdf", false],
      ["https://news.example.jp/article/1", true],
    ]);
    expect(read.errors).toEqual([
      {
        index: 2,
        reason: "content/how-to-read-a-paper-18c1a2b3c4d.html: cut off: the archive ends inside it; the entry is imported without it",
        hint: "content/how-to-read-a-paper-18c1a2b3c4d.html",
        partial: true,
      },
    ]);
    expect(read.truncated).toBeDefined();
  });

  test("a ZIP without metadata files is unsupported_format; past the archive limit it is a zip_bomb", () => {
    expect(fileErrorCode(() => parseOmnivoreZip(zipSync({ "notes.txt": strToU8("hello") })))).toBe("unsupported_format");
    const bomb = zipSync(omnivoreZip({ "content/big.html": new Uint8Array(3 * 1024 * 1024) }));
    expect(fileErrorCode(() => parseOmnivoreZip(bomb, resolveLimits({ maxZipBytes: 1024 * 1024 })))).toBe("zip_bomb");
  });

  test("a page past the entry limit is not read: its entry is imported without it, the others with theirs", () => {
    const zip = zipSync(omnivoreZip({ "content/how-to-read-a-paper-18c1a2b3c4d.html": new Uint8Array(3 * 1024 * 1024), "content/b\u0000ig.html": new Uint8Array(3 * 1024 * 1024) }));
    const read = parseOmnivoreZip(zip, resolveLimits({ maxZipEntryBytes: 1024 * 1024 }));
    expect(read.entries.map((e) => [e.url, e.contentHtml !== undefined])).toEqual([
      ["https://papers.example.edu/read.pdf", false],
      ["https://news.example.jp/article/1", true],
    ]);
    // The fixture's third item has no URL; the two pages too large are listed, their entries still imported.
    expect(read.errors.map((e) => [e.reason, e.partial])).toEqual([
      ["no URL", undefined],
      [`content/how-to-read-a-paper-18c1a2b3c4d.html: expands past ${1024 * 1024} bytes: not read (a ZIP bomb?); the entry is imported without it`, true],
      [`content/big.html: expands past ${1024 * 1024} bytes: not read (a ZIP bomb?); the entry is imported without it`, true],
    ]);
    expect(read.truncated).toBeUndefined();
  });
});

describe("Omnivore highlight Markdown", () => {
  test("text before the first quote is the item's note; label-only paragraphs are dropped", () => {
    const md = "An article note.\n\n> Quoted\n\n#tag\n\nFirst note paragraph\n\nSecond note paragraph\n";
    expect(parseOmnivoreHighlights(md)).toEqual({
      highlights: [{ text: "Quoted", note: "First note paragraph\n\nSecond note paragraph" }],
      itemNote: "An article note.",
    });
  });

  test("CRLF line ends; quotes back to back are separate highlights", () => {
    expect(parseOmnivoreHighlights("> one\r\n\r\n> two\r\n").highlights.map((h) => h.text)).toEqual(["one", "two"]);
  });
});

/** One Trove Markdown item file in the agreed layout. */
function itemFile(front: string, sections: { content?: string; highlights?: string; note?: string }): string {
  const parts = [`---\n${front}\n---`, ""];
  if (sections.content !== undefined) parts.push(m.contentStart, sections.content, m.contentEnd, "");
  if (sections.highlights !== undefined) parts.push(m.highlightsStart, "## Highlights", "", "```json", sections.highlights, "```", m.highlightsEnd, "");
  if (sections.note !== undefined) parts.push(m.noteStart, sections.note, m.noteEnd, "");
  return parts.join("\n");
}

const fullItem = itemFile(
  [
    "id: 01J9ZQ4Y1V8W6X5T4S3R2Q1P0N",
    "url: https://trove.example/articles/42?ref=a&b=c",
    'title: "Title: with a colon — and 中文"',
    "tags:",
    "  - rust",
    "  - 2024",
    "  - Rust",
    "collections:",
    "  - Work / Projects",
    "status: archived",
    "created: 2023-11-14T22:13:20Z",
    "updated: 2023-11-15T00:00:00Z",
    "processed: 2023-11-15T01:00:00Z",
    "source: browser",
  ].join("\n"),
  {
    content: "# Heading\n\nBody text. An article quoting our own marker:\n\n" + m.contentEnd + "\n\nstill the article.",
    highlights: JSON.stringify([{ text: "Body text", note: "why", startOffset: 11, endOffset: 20, createdAt: 1_700_000_000 }], null, 2),
    note: "My **note**\n\nwith two paragraphs",
  },
);

describe("Trove Markdown ZIP", () => {
  const archive: Zippable = {
    "README.md": strToU8("# Trove export\n\nOne file per item."),
    "items/2023/title-with-a-colon.md": strToU8(fullItem),
    "items/2023/attachment.png": new Uint8Array([0x89, 0x50, 0x4e, 0x47]),
    "items/minimal.md": strToU8(itemFile("url: https://trove.example/min\nstatus: stashed\nsource: null", {})),
    "items/no-frontmatter.md": strToU8("# Just a note\n\nNo frontmatter here."),
    "items/bad-yaml.md": strToU8("---\nurl: [unclosed\n---\nbody"),
    "items/bad-highlights.md": strToU8(itemFile("url: https://trove.example/bad-h\ntitle: 1984", { content: "Text", highlights: "[{not json" })),
    "items/handwritten.md": strToU8("---\nurl: https://hand.example/\ntitle: Hand written\n---\n\nSome **Markdown** body.\n"),
    "items/mailto.md": strToU8(itemFile("url: mailto:someone@example.com\ntitle: Mail", {})),
  };
  const result = parseTroveMarkdownZip(zipSync(archive));

  test("a full item: frontmatter fields, content up to the last end marker, highlights JSON, note", () => {
    expect(result.entries[0]).toEqual({
      url: "https://trove.example/articles/42?ref=a&b=c",
      title: "Title: with a colon — and 中文",
      createdAt: Date.UTC(2023, 10, 14, 22, 13, 20) / 1000,
      tags: ["rust", "2024"],
      collections: ["Work / Projects"],
      status: "archived",
      processedAt: Date.UTC(2023, 10, 15, 1) / 1000,
      note: "My **note**\n\nwith two paragraphs",
      highlights: [{ text: "Body text", note: "why", startOffset: 11, endOffset: 20, createdAt: 1_700_000_000 }],
      contentMarkdown: `# Heading\n\nBody text. An article quoting our own marker:\n\n${m.contentEnd}\n\nstill the article.`,
      source: "browser",
    });
  });

  test("README.md and non-.md files are ignored; a minimal file gives URL and status only", () => {
    expect(result.entries.map((e) => e.url)).toEqual([
      "https://trove.example/articles/42?ref=a&b=c",
      "https://trove.example/min",
      "https://trove.example/bad-h",
      "https://hand.example/",
    ]);
    // `source: null` is YAML's null: no source.
    expect(result.entries[1]).toEqual({ url: "https://trove.example/min", status: "stashed" });
  });

  test("a number title reads as text; a broken highlights block keeps the item and is reported", () => {
    expect(result.entries[2]).toEqual({ url: "https://trove.example/bad-h", title: "1984", contentMarkdown: "Text" });
    expect(result.errors).toContainEqual({ index: 4, reason: "imported without its highlights: their JSON block does not parse", hint: "items/bad-highlights.md", partial: true });
  });

  test("a file without markers gives its body as the content", () => {
    expect(result.entries[3]).toEqual({ url: "https://hand.example/", title: "Hand written", contentMarkdown: "Some **Markdown** body." });
  });

  test("files without frontmatter, with broken YAML, or with a non-web URL are errors by position among item files", () => {
    expect(result.errors.map((e) => [e.index, e.hint, e.reason.split(" (")[0]])).toEqual([
      [2, "items/no-frontmatter.md", "no YAML frontmatter"],
      [3, "items/bad-yaml.md", "the frontmatter is not valid YAML"],
      [4, "items/bad-highlights.md", "imported without its highlights: their JSON block does not parse"],
      [6, "mailto:someone@example.com", "not a web address"],
    ]);
  });

  test("two files of the same URL are two entries", () => {
    const same = (title: string) => strToU8(itemFile(`url: https://same.example/\ntitle: ${title}`, {}));
    const read = parseTroveMarkdownZip(zipSync({ "a.md": same("One"), "b/a.md": same("Two") }));
    expect(read.entries.map((e) => [e.url, e.title])).toEqual([
      ["https://same.example/", "One"],
      ["https://same.example/", "Two"],
    ]);
  });

  test("NUL and lone surrogates in the file are cleaned", () => {
    const dirty = itemFile('url: https://trove.example/dirty\ntitle: "T\\0i\\uD800"', { content: "Bo\u0000dy", note: "n\u0000" });
    const [entry] = parseTroveMarkdownZip(zipSync({ "dirty.md": strToU8(dirty) })).entries;
    expect(entry).toMatchObject({ title: "Ti\ufffd", contentMarkdown: "Body", note: "n" });
    expect(storable(entry)).toBe(true);
  });

  test("an archive without its central directory still yields its items, marked truncated", () => {
    const zip = zipSync({ "a.md": strToU8(fullItem), "b.md": strToU8(itemFile("url: https://trove.example/b", {})) });
    const read = parseTroveMarkdownZip(zip.subarray(0, centralDirectoryAt(zip)));
    expect(read.entries.map((e) => e.url)).toEqual(["https://trove.example/articles/42?ref=a&b=c", "https://trove.example/b"]);
    expect(read.truncated).toBe("the archive's end (central directory) is missing: cut short?");
  });
});
