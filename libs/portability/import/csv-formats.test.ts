// The CSV exports: Pocket, Instapaper and Readwise Reader. Quoting, unicode, duplicates, missing cells, bad rows,
// files cut inside a quoted cell, BOMs and UTF-16, columns found by name.
import { describe, expect, test } from "bun:test";
import { parseInstapaperCsv } from "./instapaper.ts";
import { parsePocketCsv } from "./pocket.ts";
import { parseReadwiseCsv } from "./readwise.ts";
import { bytes, fileErrorCode, fixture, storable } from "./test-helpers.ts";

describe("Pocket CSV", () => {
  const result = parsePocketCsv(fixture("pocket.csv"));

  test("quoted commas, doubled quotes and newlines in titles; tags split on |, deduped; status from status", () => {
    expect(result.entries[0]).toEqual({
      url: "https://blog.example.com/hello?utm=1&b=2",
      title: 'Hello, "world" — a post',
      createdAt: 1_712_345_678,
      tags: ["news", "tech"],
      status: "stashed",
      source: "import:pocket",
    });
    expect(result.entries[1]).toMatchObject({ url: "https://two-lines.example/", title: "A title on two lines", status: "archived" });
    expect(result.entries[1]?.tags).toBeUndefined();
  });

  test("CJK, emoji and RTL titles and tags are kept", () => {
    expect(result.entries[2]).toMatchObject({ title: "東京の天気 🌤️", tags: ["日本語", "weather"] });
    expect(result.entries[3]).toMatchObject({ title: "שלום עולם", status: "archived" });
  });

  test("missing title, time and status: the entry has just its URL", () => {
    expect(result.entries[4]).toEqual({ url: "https://no-title.example/", status: "stashed", source: "import:pocket" });
  });

  test("bad rows are errors with their row index and a hint; the duplicate row is kept", () => {
    expect(result.errors).toEqual([
      { index: 5, reason: "not a web address (javascript: URL)", hint: "javascript:void(0)" },
      { index: 6, reason: "no URL", hint: "No URL at all" },
    ]);
    expect(result.entries.map((e) => e.createdAt).slice(-1)).toEqual([1_712_000_000]);
    expect(result.entries.filter((e) => e.url === "https://blog.example.com/hello?utm=1&b=2")).toHaveLength(2);
  });

  test("columns are found by name whatever their order or case, extra columns ignored", () => {
    const csv = "STATUS,Tags,URL,extra,Title,Time_Added\narchive,a|b,https://o.example/,zzz,Ordered,1700000000\n";
    expect(parsePocketCsv(bytes(csv)).entries).toEqual([
      { url: "https://o.example/", title: "Ordered", createdAt: 1_700_000_000, tags: ["a", "b"], status: "archived", source: "import:pocket" },
    ]);
  });

  test("a favourite column: flagged, or archived plus the favorite tag", () => {
    const csv = "title,url,time_added,tags,status,favorite\nA,https://f.example/a,,,unread,1\nB,https://f.example/b,,x,archive,1\n";
    expect(parsePocketCsv(bytes(csv)).entries.map((e) => [e.status, e.tags])).toEqual([
      ["flagged", undefined],
      ["archived", ["x", "favorite"]],
    ]);
  });

  test("a file cut inside a quoted title keeps the rows before and reports the cut row", () => {
    const csv = 'title,url,time_added,tags,status\nFirst,https://c.example/1,1700000000,,unread\n"Second, cut here\nstill the title';
    const cut = parsePocketCsv(bytes(csv));
    expect(cut.entries.map((e) => e.url)).toEqual(["https://c.example/1"]);
    expect(cut.errors).toEqual([{ index: 1, reason: "the file ends inside a quoted cell (cut short?)", hint: "line 3" }]);
    expect(cut.truncated).toBe("the file ends inside a quoted cell (cut short?)");
  });

  test("a file cut mid-row (no quote open) keeps the partial row when its URL is whole", () => {
    const cut = parsePocketCsv(bytes("title,url,time_added,tags,status\nA,https://c.example/a,17000"));
    expect(cut.entries).toEqual([{ url: "https://c.example/a", title: "A", createdAt: 17_000, status: "stashed", source: "import:pocket" }]);
  });

  test("a BOM and CRLF line ends are handled; a UTF-16 file (spreadsheet export) reads the same", () => {
    const csv = "\ufefftitle,url,time_added,tags,status\r\nÉté,https://u.example/,1700000000,,unread\r\n";
    expect(parsePocketCsv(bytes(csv)).entries[0]).toMatchObject({ url: "https://u.example/", title: "Été" });
    const utf16 = new Uint8Array([0xff, 0xfe, ...new Uint8Array(new Uint16Array([...csv.slice(1)].map((c) => c.charCodeAt(0))).buffer)]);
    expect(parsePocketCsv(utf16).entries[0]).toMatchObject({ url: "https://u.example/", title: "Été" });
  });

  test("NUL characters and lone surrogates are cleaned from every cell", () => {
    const csv = "title,url,time_added,tags,status\nT\u0000i\ud800,https://n.example/\u0000,1700000000,a\u0000|\udc00,unread\n";
    const [entry] = parsePocketCsv(bytes(csv)).entries;
    // TextEncoder already turns a lone surrogate into U+FFFD; the bytes here are what a file can hold.
    expect(entry).toMatchObject({ title: "Ti\ufffd", url: "https://n.example/", tags: ["a", "\ufffd"] });
    expect(storable(entry)).toBe(true);
  });

  test("a CSV without a url column is unsupported_format; an empty file is corrupt_file", () => {
    expect(fileErrorCode(() => parsePocketCsv(bytes("name,link\nA,https://x.example/\n")))).toBe("unsupported_format");
    expect(fileErrorCode(() => parsePocketCsv(bytes("")))).toBe("corrupt_file");
  });
});

describe("Instapaper CSV", () => {
  const result = parseInstapaperCsv(fixture("instapaper.csv"));
  const entry = (i: number) => result.entries[i];

  test("an Unread row: title with a comma, the selection as a highlight, JSON-list tags", () => {
    expect(entry(0)).toEqual({
      url: "https://essay.example.com/on-reading",
      title: "On reading, slowly",
      createdAt: 1_690_000_000,
      tags: ["essays", "reading"],
      status: "stashed",
      highlights: [{ text: 'The best books are the ones you "reread".', note: "", startOffset: null, endOffset: null }],
      source: "import:instapaper",
    });
  });

  test("Archive is archived, Starred is flagged, another folder is a collection (stashed)", () => {
    expect([entry(1)?.status, entry(1)?.collections, entry(1)?.tags]).toEqual(["archived", undefined, undefined]);
    expect([entry(2)?.status, entry(2)?.collections, entry(2)?.tags]).toEqual(["flagged", undefined, ["Fav"]]);
    expect([entry(3)?.status, entry(3)?.collections, entry(3)?.title]).toEqual(["stashed", ["Recipes"], 'Saved in "Recipes/Breads"']);
  });

  test("CJK title and a selection across lines", () => {
    expect(entry(4)).toMatchObject({ url: "https://zh.example.cn/文章", title: "中文标题" });
    expect(entry(4)?.highlights?.[0]?.text).toBe("高亮的句子\n跨两行");
  });

  test("an ftp: row is an error; the later duplicate without a selection is kept, with no highlight", () => {
    expect(result.errors).toEqual([{ index: 5, reason: "not a web address (ftp: URL)", hint: "ftp://files.example/x.zip" }]);
    expect(entry(5)).toMatchObject({ url: "https://essay.example.com/on-reading", createdAt: 1_690_000_001 });
    expect(entry(5)?.highlights).toBeUndefined();
  });

  test("the older export without a Tags column", () => {
    const csv = "URL,Title,Selection,Folder,Timestamp\nhttps://old.example/,Old,,Unread,1500000000\n";
    expect(parseInstapaperCsv(bytes(csv)).entries).toEqual([
      { url: "https://old.example/", title: "Old", createdAt: 1_500_000_000, status: "stashed", source: "import:instapaper" },
    ]);
  });

  test("a file cut inside a quoted selection keeps the rows before", () => {
    const whole = new TextDecoder().decode(fixture("instapaper.csv"));
    const cut = parseInstapaperCsv(bytes(whole.slice(0, whole.indexOf("跨两行"))));
    expect(cut.entries.map((e) => e.url)).toEqual([
      "https://essay.example.com/on-reading",
      "https://archive.example.org/old",
      "https://star.example.net/fav",
      "https://folder.example/x",
    ]);
    expect(cut.errors).toEqual([{ index: 4, reason: "the file ends inside a quoted cell (cut short?)", hint: "line 6" }]);
    expect(cut.truncated).toBeDefined();
  });
});

describe("Readwise Reader CSV", () => {
  const result = parseReadwiseCsv(fixture("readwise.csv"));

  test("Python-list tags, the ISO-ish saved date, later is stashed", () => {
    expect(result.entries[0]).toEqual({
      url: "https://deep.example.com/work",
      title: "Deep work, revisited",
      createdAt: Date.UTC(2024, 4, 1, 10, 11, 12) / 1000,
      tags: ["productivity", "focus"],
      status: "stashed",
      source: "import:readwise",
    });
  });

  test("shortlist is the favourite (flagged); archive is archived; quotes inside list items survive", () => {
    expect(result.entries[1]).toMatchObject({ status: "flagged", createdAt: Date.UTC(2024, 4, 2, 8) / 1000 });
    expect(result.entries[1]?.tags).toBeUndefined();
    expect(result.entries[2]).toMatchObject({ status: "archived", tags: ["it's fine", 'quote"d'], createdAt: Date.UTC(2024, 4, 3, 9, 30) / 1000 });
  });

  test("comma-separated tags; an unreadable date is left out; new and feed are stashed", () => {
    expect(result.entries[3]).toEqual({ url: "https://new.example/inbox", title: "Inbox item", tags: ["a", "b"], status: "stashed", source: "import:readwise" });
    expect(result.entries[4]?.status).toBe("stashed");
  });

  test("a row without a URL (an uploaded PDF) is an error naming its title", () => {
    expect(result.errors).toEqual([{ index: 5, reason: "no URL", hint: "PDF upload" }]);
  });

  test("unicode titles and tags, duplicate rows kept, a file cut inside a quoted tag list", () => {
    const csv = [
      "Title,URL,Document tags,Saved date,Location",
      `"Привет, мир 👋",https://ru.example/привет,"['русский', '🏷️']",2024-06-01 00:00:00+00:00,later`,
      `"Привет, мир 👋",https://ru.example/привет,[],2024-06-02 00:00:00+00:00,archive`,
      `مقالة,https://ar.example/مقالة,"['عربي'`,
    ].join("\n");
    const read = parseReadwiseCsv(bytes(csv));
    expect(read.entries).toEqual([
      { url: "https://ru.example/привет", title: "Привет, мир 👋", createdAt: Date.UTC(2024, 5, 1) / 1000, tags: ["русский", "🏷️"], status: "stashed", source: "import:readwise" },
      { url: "https://ru.example/привет", title: "Привет, мир 👋", createdAt: Date.UTC(2024, 5, 2) / 1000, status: "archived", source: "import:readwise" },
    ]);
    expect(read.errors).toEqual([{ index: 2, reason: "the file ends inside a quoted cell (cut short?)", hint: "line 4" }]);
    expect(read.truncated).toBeDefined();
  });

  test("lower-case and snake_case headers, and a note column", () => {
    const csv = "title,source_url,document_tags,saved_at,location,notes\nLower,https://l.example/,['x'],1714558272,archive,My note\n";
    expect(parseReadwiseCsv(bytes(csv)).entries).toEqual([
      { url: "https://l.example/", title: "Lower", createdAt: 1_714_558_272, tags: ["x"], status: "archived", note: "My note", source: "import:readwise" },
    ]);
  });
});
