// Netscape bookmark files: browser roots, nested folders as paths, entities, dates in three units, <DD> notes,
// bad addresses reported, files cut anywhere.
import { describe, expect, test } from "bun:test";
import { resolveLimits } from "./limits.ts";
import { folderPath, parseNetscapeHtml } from "./netscape.ts";
import { clampText } from "./text.ts";
import { bytes, fixture, storable } from "./test-helpers.ts";

describe("a Chrome export", () => {
  const result = parseNetscapeHtml(fixture("chrome-bookmarks.html"));
  const byUrl = (url: string) => result.entries.find((e) => e.url === url);

  test("reads every web bookmark in file order, with source import:netscape", () => {
    expect(result.entries.map((e) => e.url)).toEqual([
      "https://news.example.org/",
      "https://rust-book.example/ch01",
      "https://crates.example/crates/serde?x=1&y=2",
      "https://misc.example/bar",
      "https://rtl.example/ar",
      "https://food.example/bread",
      "https://food.example/misc",
    ]);
    expect(result.entries.every((e) => e.source === "import:netscape")).toBe(true);
    expect(result.truncated).toBeUndefined();
  });

  test("the bookmarks bar is not a collection; folders below it are, named by their path", () => {
    expect(byUrl("https://news.example.org/")?.collections).toBeUndefined();
    expect(byUrl("https://rust-book.example/ch01")?.collections).toEqual(["Dev"]);
    expect(byUrl("https://crates.example/crates/serde?x=1&y=2")?.collections).toEqual(["Dev / Rust"]);
  });

  test("two folders named Misc stay apart; top-level folders (Other bookmarks) are collections too", () => {
    expect(byUrl("https://misc.example/bar")?.collections).toEqual(["Misc"]);
    expect(byUrl("https://food.example/misc")?.collections).toEqual(["Recipes / Misc"]);
    expect(byUrl("https://food.example/bread")?.collections).toEqual(["Recipes"]);
    expect(byUrl("https://rtl.example/ar")?.collections).toBeUndefined();
  });

  test("entities are decoded in titles and addresses; CJK, emoji and RTL titles are kept", () => {
    expect(byUrl("https://news.example.org/")?.title).toBe("News & Views");
    expect(byUrl("https://crates.example/crates/serde?x=1&y=2")?.title).toBe("serde — 序列化 🦀");
    expect(byUrl("https://rtl.example/ar")?.title).toBe("مرحبا بالعالم");
  });

  test("ADD_DATE in seconds is createdAt", () => {
    expect(byUrl("https://news.example.org/")?.createdAt).toBe(1_700_000_100);
  });

  test("a javascript: bookmarklet is an error with its position and address", () => {
    expect(result.errors).toEqual([
      { index: 3, reason: "not a web address (javascript: URL)", hint: "javascript:alert(document.title)" },
    ]);
  });
});

describe("a Firefox export", () => {
  const result = parseNetscapeHtml(fixture("firefox-bookmarks.html"));

  test("toolbar and Other Bookmarks roots are skipped, their subfolders kept", () => {
    const started = result.entries.find((e) => e.url === "https://getting-started.example/");
    expect(started?.collections).toBeUndefined();
    const posts = result.entries.filter((e) => e.url === "https://blog.example.com/post");
    expect(posts.map((p) => p.collections)).toEqual([["Reading"], ["Reading"]]);
  });

  test("duplicates are both kept (the items service dedupes)", () => {
    const posts = result.entries.filter((e) => e.url === "https://blog.example.com/post");
    expect(posts.map((p) => p.title)).toEqual(["A post", "A post (saved again)"]);
  });

  test("ADD_DATE in milliseconds and microseconds becomes seconds; negative or far-future dates are left out", () => {
    const at = (url: string, title?: string) => result.entries.find((e) => e.url === url && (!title || e.title === title))?.createdAt;
    expect(at("https://getting-started.example/")).toBe(1_650_000_300);
    expect(at("https://blog.example.com/post", "A post")).toBe(1_650_000_400);
    expect(at("https://dates.example/bad")).toBeUndefined();
    expect(at("https://dates.example/far")).toBeUndefined();
    expect(result.entries.find((e) => e.url === "https://dates.example/far")).toBeDefined();
  });

  test("TAGS are split, trimmed, deduplicated case-insensitively (first spelling kept)", () => {
    expect(result.entries.find((e) => e.url === "https://mozilla.example.org/")?.tags).toEqual(["browser", "Open Source"]);
    expect(result.entries.find((e) => e.title === "A post")?.tags).toEqual(["longread"]);
  });

  test("<DD> after a bookmark is its note (entities decoded, lines kept); after a folder it is ignored", () => {
    expect(result.entries.find((e) => e.url === "https://mozilla.example.org/")?.note).toBe("A note about <Mozilla>\nwith a second line");
    expect(result.entries.filter((e) => e.note !== undefined)).toHaveLength(1);
  });

  test("place:, file: and missing addresses are errors, in file order", () => {
    expect(result.errors.map((e) => [e.index, e.reason])).toEqual([
      [0, "not a web address (place: URL)"],
      [5, "not a web address (file: URL)"],
      [6, "no URL"],
    ]);
    expect(result.errors[2]?.hint).toBe("No address");
  });
});

describe("odd and damaged files", () => {
  test("a file cut in the middle of a bookmark keeps the ones before and is marked truncated", () => {
    const whole = new TextDecoder().decode(fixture("chrome-bookmarks.html"));
    const cut = whole.slice(0, whole.indexOf("https://rtl.example/ar") + 10);
    const result = parseNetscapeHtml(bytes(cut));
    expect(result.entries.map((e) => e.url)).toEqual([
      "https://news.example.org/",
      "https://rust-book.example/ch01",
      "https://crates.example/crates/serde?x=1&y=2",
      "https://misc.example/bar",
    ]);
    expect(result.truncated).toBe("the bookmark file ends early (cut short?)");
  });

  test("a file cut inside a title keeps that bookmark with the title read so far", () => {
    const result = parseNetscapeHtml(bytes('<DL><p><DT><A HREF="https://a.example/">Complete</A><DT><A HREF="https://b.example/">Half a ti'));
    expect(result.entries.map((e) => [e.url, e.title])).toEqual([
      ["https://a.example/", "Complete"],
      ["https://b.example/", "Half a ti"],
    ]);
    expect(result.truncated).toBeDefined();
  });

  test("Pinboard-style flat list without folders: tags, notes, no collections", () => {
    const html = `<!DOCTYPE NETSCAPE-Bookmark-file-1>
<META HTTP-EQUIV="Content-Type" CONTENT="text/html; charset=UTF-8">
<TITLE>Pinboard Bookmarks</TITLE>
<H1>Bookmarks</H1>
<DL><p><DT><A HREF="https://pin.example/one" ADD_DATE="1500000000" PRIVATE="0" TOREAD="1" TAGS="a,b">One, "quoted" &amp; more</A>
<DD>First line of a description
<DT><A HREF="https://pin.example/two" ADD_DATE="1500000001" PRIVATE="1" TOREAD="0" TAGS="">Two</A>
</DL><p>`;
    const result = parseNetscapeHtml(bytes(html));
    expect(result.entries).toEqual([
      { url: "https://pin.example/one", title: 'One, "quoted" & more', createdAt: 1_500_000_000, tags: ["a", "b"], note: "First line of a description", source: "import:netscape" },
      { url: "https://pin.example/two", title: "Two", createdAt: 1_500_000_001, source: "import:netscape" },
    ]);
    expect(result.truncated).toBeUndefined();
  });

  test("Pocket's old HTML export: the Read Archive list is archived, time_added is the date", () => {
    const html = `<!DOCTYPE html><html><head><title>Pocket Export</title></head><body>
<h1>Unread</h1><ul><li><a href="https://p.example/u" time_added="1600000000" tags="x">Unread one</a></li></ul>
<h1>Read Archive</h1><ul><li><a href="https://p.example/r" time_added="1600000001" tags="">Read one</a></li></ul>
</body></html>`;
    const result = parseNetscapeHtml(bytes(html));
    expect(result.entries.map((e) => [e.url, e.status, e.createdAt])).toEqual([
      ["https://p.example/u", undefined, 1_600_000_000],
      ["https://p.example/r", "archived", 1_600_000_001],
    ]);
  });

  test("NUL characters and lone surrogates are removed from titles, notes, tags and folder names", () => {
    const html = `<DL><p><DT><H3>Fol\u0000der \ud800</H3><DL><p>
<DT><A HREF="https://n.example/" TAGS="t\u0000ag,\udc00x">Ti\u0000tle \ud83d\ude00 \udfff</A><DD>no\u0000te \ud800</DL>`;
    const [entry] = parseNetscapeHtml(bytes(html)).entries;
    expect(entry).toMatchObject({ title: "Title 😀 \ufffd", tags: ["tag", "\ufffdx"], note: "note \ufffd", collections: ["Folder \ufffd"] });
    expect(storable(entry)).toBe(true);
  });

  test("titles longer than the limit are clamped; at most maxEntries entries, then truncated", () => {
    const long = "x".repeat(1_500);
    const many = Array.from({ length: 5 }, (_, i) => `<DT><A HREF="https://m.example/${i}">${long}</A>`).join("\n");
    const result = parseNetscapeHtml(bytes(`<DL><p>${many}</DL>`), resolveLimits({ maxEntries: 3 }));
    expect(result.entries).toHaveLength(3);
    expect(result.entries[0]?.title).toHaveLength(1_000);
    expect(result.truncated).toBe("the file holds more than 3 entries; only the first 3 were read");
  });

  test("a folder heading without its list (an empty folder) does not name a later list", () => {
    const html = `<DL><p><DT><H3>Empty</H3>\n<DT><A HREF="https://after.example/">After</A>\n<DL><p><DT><A HREF="https://in.example/">In</A></DL>
<DT><H3>Full</H3><DL><p><DT><A HREF="https://full.example/">Full one</A></DL></DL>`;
    expect(parseNetscapeHtml(bytes(html)).entries.map((e) => [e.url, e.collections])).toEqual([
      ["https://after.example/", undefined],
      ["https://in.example/", undefined],
      ["https://full.example/", ["Full"]],
    ]);
  });

  test("deeply nested folders: each bookmark's collection is its folders' path cut to the name limit, as when built whole", () => {
    const names = ["  Dev ", "Rust\n  lang", "😀", "", "x".repeat(7), "Ünï"];
    let html = "<DL><p>";
    names.forEach((name, i) => (html += `<DT><H3>${name}</H3><DL><p><DT><A HREF="https://nest.example/${i}">B${i}</A>`));
    for (const max of [5, 9, 12, 200]) {
      const result = parseNetscapeHtml(bytes(html), resolveLimits({ maxCollectionLength: max }));
      const expected = names.map((_, i) => {
        const path = folderPath(names.slice(0, i + 1));
        return path === undefined ? undefined : [clampText(path, max)];
      });
      expect(result.entries.map((e) => e.collections)).toEqual(expected);
    }
  });

  test("folders nested past maxFolderDepth end the reading: the bookmarks above are kept, the result says why", () => {
    let html = "<DL><p>";
    for (let i = 0; i < 50; i++) html += `<DT><A HREF="https://deep.example/${i}">B${i}</A><DT><H3>F${i}</H3><DL><p>`;
    html += "</x>".repeat(10_000);
    const result = parseNetscapeHtml(bytes(html), resolveLimits({ maxFolderDepth: 10 }));
    expect(result.entries.map((e) => e.url)).toEqual(Array.from({ length: 10 }, (_, i) => `https://deep.example/${i}`));
    expect(result.entries[9]?.collections).toEqual(["F0 / F1 / F2 / F3 / F4 / F5 / F6 / F7 / F8"]);
    expect(result.truncated).toBe("folders are nested deeper than 10 levels; the rest of the file was not read");
  });

  test("a file with no bookmarks gives nothing and no errors", () => {
    expect(parseNetscapeHtml(bytes("<!DOCTYPE NETSCAPE-Bookmark-file-1><DL><p></DL><p>"))).toEqual({ entries: [], errors: [] });
  });
});
