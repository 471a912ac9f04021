// Format detection from the bytes, for every format, and what it refuses to guess.
import { describe, expect, test } from "bun:test";
import { strToU8, zipSync } from "fflate";
import { detectFormat } from "./detect.ts";
import { bytes, fixture } from "./test-helpers.ts";
import { troveMarkdownMarkers } from "./trove-markdown.ts";

describe("detectFormat", () => {
  test("Netscape bookmark files: by doctype, by DL/DT without it, Pocket's old HTML by time_added", () => {
    expect(detectFormat(fixture("chrome-bookmarks.html"))).toBe("netscape_html");
    expect(detectFormat(fixture("firefox-bookmarks.html"))).toBe("netscape_html");
    expect(detectFormat(bytes('\ufeff  <dl><p><dt><a href="https://a.example/">A</a></dl>'))).toBe("netscape_html");
    expect(detectFormat(bytes('<html><body><h1>Unread</h1><ul><li><a href="https://a.example/" time_added="1">A</a></li></ul>'))).toBe("netscape_html");
  });

  test("an ordinary web page is not taken for bookmarks, unless named .html or sent as text/html", () => {
    const page = bytes('<!DOCTYPE html><html><body><p>Hello <a href="https://a.example/">link</a></p></body></html>');
    expect(detectFormat(page)).toBeUndefined();
    expect(detectFormat(page, "bookmarks.HTML")).toBe("netscape_html");
    expect(detectFormat(page, undefined, "text/html; charset=utf-8")).toBe("netscape_html");
  });

  test("the CSV exports by their header names", () => {
    expect(detectFormat(fixture("pocket.csv"))).toBe("pocket_csv");
    expect(detectFormat(bytes("title,url,time_added,tags,status\n"))).toBe("pocket_csv");
    expect(detectFormat(fixture("instapaper.csv"))).toBe("instapaper_csv");
    expect(detectFormat(bytes('"URL","Title","Selection","Folder","Timestamp"\n'))).toBe("instapaper_csv");
    expect(detectFormat(fixture("readwise.csv"))).toBe("readwise_csv");
    expect(detectFormat(bytes("\ufefftitle,url,document tags,saved date,location\n"))).toBe("readwise_csv");
  });

  test("a CSV of another kind, and a CSV without a URL column, are not guessed", () => {
    expect(detectFormat(bytes("url,name\nhttps://a.example/,A\n"))).toBeUndefined();
    expect(detectFormat(bytes("title,time_added,status\n"))).toBeUndefined();
  });

  test("the JSON exports by their shape, even when cut short", () => {
    const wallabag = JSON.stringify([{ is_archived: 0, is_starred: 0, url: "https://a.example/", title: "A" }]);
    expect(detectFormat(bytes(wallabag))).toBe("wallabag_json");
    expect(detectFormat(bytes(wallabag.slice(0, 30)))).toBe("wallabag_json");
    const karakeep = JSON.stringify({ bookmarks: [{ createdAt: 1, title: "items", tags: ["items"], content: { type: "link", url: "https://a.example/" } }], lists: [] });
    expect(detectFormat(bytes(karakeep))).toBe("karakeep_json");
    const trove = JSON.stringify({ format: "trove", exportedAt: "2026-01-01T00:00:00Z", items: [{ url: "https://a.example/", tags: ["bookmarks"], note: '"bookmarks": x' }] });
    expect(detectFormat(bytes(trove))).toBe("trove_json");
    expect(detectFormat(bytes(JSON.stringify([{ id: "x", url: "https://a.example/", collections: [], highlights: [], contentExtractedAt: null }])))).toBe("trove_json");
  });

  test("JSON of another shape is not guessed", () => {
    expect(detectFormat(bytes('{"data": [1, 2, 3]}'))).toBeUndefined();
    expect(detectFormat(bytes("[]"))).toBeUndefined();
  });

  test("an Omnivore ZIP by its metadata files (in a folder too)", () => {
    expect(detectFormat(zipSync({ "content/a.html": strToU8("<p>x</p>"), "metadata_0_to_20.json": strToU8("[]") }))).toBe("omnivore_zip");
    expect(detectFormat(zipSync({ "export/metadata_20_to_40.json": strToU8("[]") }))).toBe("omnivore_zip");
  });

  test("a Trove Markdown ZIP by an item file's frontmatter; other Markdown ZIPs are not guessed", () => {
    const item = `---\nurl: https://a.example/\ntitle: A\nstatus: stashed\ntags: []\n---\n\n${troveMarkdownMarkers.contentStart}\nx\n${troveMarkdownMarkers.contentEnd}\n`;
    expect(detectFormat(zipSync({ "README.md": strToU8("# Export"), "items/a.md": strToU8(item) }))).toBe("trove_markdown_zip");
    expect(detectFormat(zipSync({ "notes/a.md": strToU8("# Just notes\n") }))).toBeUndefined();
    expect(detectFormat(zipSync({ "photo.jpg": new Uint8Array([0xff, 0xd8]) }))).toBeUndefined();
  });

  test("bytes of nothing known (and empty bytes) are undefined", () => {
    expect(detectFormat(new Uint8Array([0x00, 0x01, 0x02]))).toBeUndefined();
    expect(detectFormat(new Uint8Array(0))).toBeUndefined();
    expect(detectFormat(bytes("PK\u0003\u0004 but not really a zip"))).toBeUndefined();
  });
});
