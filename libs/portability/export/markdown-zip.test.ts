// The Markdown ZIP read back: unzipped with fflate, frontmatter parsed with yaml, sections cut out by their markers.
import { describe, expect, test } from "bun:test";
import { unzipSync } from "fflate";
import { parse } from "yaml";
import type { ExportRecord } from "@trove/contracts";
import { exportWriter } from "./formats.ts";
import { escapeMarkers, itemMarkdown, markers, unescapeMarkers } from "./item-markdown.ts";
import { exportBytes, idOf, pagesOf, record, records, trickyContent } from "./test-fixtures.ts";

const exportedAt = 1767225600; // 2026-01-01T00:00:00Z
const iso = (s: number) => new Date(s * 1000).toISOString();
const utf8 = new TextDecoder("utf-8", { fatal: true });

async function zipOf(rs: ExportRecord[], opts = { includeContent: true, includeNotes: true }, pageSize = 5) {
  const w = exportWriter("markdown_zip", { ...opts, exportedAt });
  const bytes = await exportBytes(w, pagesOf(rs, pageSize));
  expect(w.itemCount).toBe(rs.length);
  return { bytes, files: new Map(Object.entries(unzipSync(bytes)).map(([name, b]) => [name, utf8.decode(b)])) };
}

/** Frontmatter (parsed) and body of one file. */
function split(text: string): { meta: Record<string, unknown>; body: string } {
  expect(text.startsWith("---\n")).toBe(true);
  const end = text.indexOf("\n---\n");
  expect(text.slice(end + 5, end + 6)).toBe("\n");
  return { meta: parse(text.slice(4, end + 1)), body: text.slice(end + 6) };
}

/** The text between a section's markers (each on its own line), or undefined when the section is not there. */
function section(body: string, m: { open: string; close: string }): string | undefined {
  const opens = body.split(m.open).length - 1;
  const closes = body.split(m.close).length - 1;
  // Escaping leaves every marker string exactly once, whatever the content holds.
  expect(opens).toBe(closes);
  expect(opens).toBeLessThanOrEqual(1);
  if (opens === 0) return undefined;
  const start = body.indexOf(`${m.open}\n`) + m.open.length + 1;
  const end = body.indexOf(`\n${m.close}\n`, start);
  expect(end).toBeGreaterThanOrEqual(start);
  return body.slice(start, end);
}

const expectedMeta = ({ id, url, title, status, tags, collections, ...r }: ExportRecord) => ({
  ...{ id, url, title, status, tags, collections },
  created: iso(r.createdAt),
  updated: iso(r.updatedAt),
  ...(r.processedAt !== null ? { processed: iso(r.processedAt) } : {}),
  ...(r.contentExtractedAt !== null ? { contentExtracted: iso(r.contentExtractedAt) } : {}),
  ...(r.source !== null ? { source: r.source } : {}),
});

/** Each entry's name, DOS date (UTC), method and flags, and the archive comment, from the central directory. */
function centralDirectory(zip: Uint8Array) {
  const view = new DataView(zip.buffer, zip.byteOffset, zip.byteLength);
  let eocd = zip.length - 22;
  while (view.getUint32(eocd, true) !== 0x06054b50) eocd--;
  const count = view.getUint16(eocd + 10, true);
  let at = view.getUint32(eocd + 16, true);
  const comment = utf8.decode(zip.subarray(eocd + 22, eocd + 22 + view.getUint16(eocd + 20, true)));
  const entries: { name: string; flags: number; method: number; date: Date }[] = [];
  for (let i = 0; i < count; i++) {
    expect(view.getUint32(at, true)).toBe(0x02014b50);
    const [time, date] = [view.getUint16(at + 12, true), view.getUint16(at + 14, true)];
    const nameLength = view.getUint16(at + 28, true);
    entries.push({
      name: utf8.decode(zip.subarray(at + 46, at + 46 + nameLength)),
      flags: view.getUint16(at + 8, true),
      method: view.getUint16(at + 10, true),
      date: new Date(Date.UTC(1980 + (date >> 9), ((date >> 5) & 15) - 1, date & 31, time >> 11, (time >> 5) & 63, (time & 31) * 2)),
    });
    at += 46 + nameLength + view.getUint16(at + 30, true) + view.getUint16(at + 32, true);
  }
  return { comment, entries };
}

describe("Markdown ZIP export", () => {
  test("one file per item: safe unique names, frontmatter equal to the record, sections equal to content, highlights and note", async () => {
    const { bytes, files } = await zipOf(records);
    expect(files.size).toBe(records.length);
    const byId = new Map<string, { name: string; text: string }>();
    for (const [name, text] of files) {
      const id = /-([0-9a-f-]{36})\.md$/.exec(name)?.[1];
      expect(id).toBeDefined();
      byId.set(id!, { name, text });
    }
    expect(byId.size).toBe(records.length);

    for (const r of records) {
      const { name, text } = byId.get(r.id)!;
      const parts = name.split("/");
      expect(parts.length).toBe(r.status === "archived" ? 2 : 1);
      if (r.status === "archived") expect(parts[0]).toBe("archived");
      const file = parts.at(-1)!;
      expect(file.startsWith(".")).toBe(false);
      expect(file).not.toMatch(/[\\:*?"<>|\u0000-\u001f\u007f]/u);
      expect(new TextEncoder().encode(name).length).toBeLessThanOrEqual(255);
      expect(name.normalize("NFC")).toBe(name);

      const { meta, body } = split(text);
      expect(meta).toEqual(expectedMeta(r));
      if (r.contentMarkdown !== undefined) expect(unescapeMarkers(section(body, markers.content)!)).toBe(r.contentMarkdown);
      else expect(section(body, markers.content)).toBeUndefined();

      const json = section(body, markers.highlights);
      if (r.highlights.length === 0) expect(json).toBeUndefined();
      else {
        expect(json!.startsWith("```json\n") && json!.endsWith("\n```")).toBe(true);
        expect(JSON.parse(json!.slice(8, -4))).toEqual(r.highlights);
        expect(body).toMatch(/(^|\n)## Highlights\n\n> /);
      }
      if (r.note) expect(unescapeMarkers(section(body, markers.note)!)).toBe(r.note);
      else {
        expect(section(body, markers.note)).toBeUndefined();
        expect(body).not.toContain("## Note");
      }
    }

    // Names of the hard titles, spelled out.
    const nameOf = (n: number) => byId.get(idOf(n))!.name;
    expect(nameOf(2)).toBe(`東京の会議メモ-日本語のタイトル-${idOf(2)}.md`);
    expect(nameOf(3)).toBe(`עברית-כותרת-בעברית-${idOf(3)}.md`);
    expect(nameOf(5)).toBe(`item-${idOf(5)}.md`);
    expect(nameOf(6)).toBe(`item-${idOf(6)}.md`);
    expect(nameOf(7)).toBe(`duplicate-title-${idOf(7)}.md`);
    expect(nameOf(8)).toBe(`duplicate-title-${idOf(8)}.md`);
    expect(nameOf(10)).toBe(`item-${idOf(10)}.md`);
    expect(nameOf(11)).toBe(`etc-passwd-${idOf(11)}.md`);
    expect(nameOf(13)).toBe(`con-${idOf(13)}.md`);
    expect(nameOf(14)).toBe(`hidden-${idOf(14)}.md`);
    expect(nameOf(16)).toBe(`archived/archived-one-${idOf(16)}.md`);
    expect(new TextEncoder().encode(nameOf(9)).length).toBeLessThanOrEqual(80 + 1 + 36 + 3);

    // Entries in the order written, deflated, non-ASCII names flagged UTF-8, dated with the item's updatedAt; the comment
    // says when the export was made.
    const cd = centralDirectory(bytes);
    expect(cd.comment).toBe(`Trove export, ${iso(exportedAt)}`);
    expect(cd.entries.map((e) => e.name)).toEqual(records.map((r) => byId.get(r.id)!.name));
    for (const [i, e] of cd.entries.entries()) {
      expect(e.method).toBe(8);
      expect(e.flags & 0x800).toBe(/^[\x20-\x7e]*$/.test(e.name) ? 0 : 0x800);
      expect(e.date.getTime()).toBe(Math.floor(records[i]!.updatedAt / 2) * 2000);
    }
  });

  test("the body layout, exactly", () => {
    const r = record(1, {
      note: "The note",
      contentMarkdown: "# Title\n\nText.\n",
      highlights: [
        { text: "One <b>\nTwo", note: "n `x`", prefix: "p", startOffset: 1, endOffset: 12, createdAt: 1709287200 },
        { text: "Three", note: "", startOffset: null, endOffset: null },
      ],
    });
    expect(itemMarkdown(r).slice(itemMarkdown(r).indexOf("\n---\n") + 5)).toBe(
      [
        "",
        "<!-- trove:content -->",
        "# Title",
        "",
        "Text.",
        "",
        "<!-- /trove:content -->",
        "",
        "## Highlights",
        "",
        "> One <b>",
        "> Two",
        "",
        "n `x`",
        "",
        "> Three",
        "",
        "<!-- trove:highlights -->",
        "```json",
        "[",
        "  {",
        '    "text": "One \\u003cb>\\nTwo",',
        '    "note": "n \\u0060x\\u0060",',
        '    "prefix": "p",',
        '    "startOffset": 1,',
        '    "endOffset": 12,',
        '    "createdAt": 1709287200',
        "  },",
        "  {",
        '    "text": "Three",',
        '    "note": "",',
        '    "startOffset": null,',
        '    "endOffset": null',
        "  }",
        "]",
        "```",
        "<!-- /trove:highlights -->",
        "",
        "## Note",
        "",
        "<!-- trove:note -->",
        "The note",
        "<!-- /trove:note -->",
        "",
      ].join("\n"),
    );
    // Nothing to say: the frontmatter and its blank line only.
    const bare = itemMarkdown(record(2));
    expect(bare.endsWith("\n---\n\n")).toBe(true);
    expect(bare.split("---\n").length).toBe(3);
  });

  test("escaping leaves no marker string in a text and is undone exactly", () => {
    const all = Object.values(markers).flatMap((m) => [m.open, m.close]);
    for (const text of [trickyContent, all.join(""), all.map((m) => m.replace("<!--", "<!--\u200B\u200B")).join("\n"), "<!--trove:x --> <!--  trove:y --> <!-- trove:z"]) {
      const escaped = escapeMarkers(text);
      for (const m of all) expect(escaped).not.toContain(m);
      expect(unescapeMarkers(escaped)).toBe(text);
    }
    expect(escapeMarkers("a <!-- note --> b")).toBe("a <!-- note --> b");
  });

  test("content and notes are left out unless included, even when the records carry them", async () => {
    const rs = records.filter((r) => r.contentMarkdown !== undefined || r.note);
    const { files } = await zipOf(rs, { includeContent: false, includeNotes: false });
    for (const text of files.values()) {
      const { body } = split(text);
      expect(section(body, markers.content)).toBeUndefined();
      expect(section(body, markers.note)).toBeUndefined();
    }
    const highlighted = [...files.values()].filter((t) => t.includes(markers.highlights.open));
    expect(highlighted.length).toBe(rs.filter((r) => r.highlights.length > 0).length);
  });

  test("an export of nothing is a valid empty ZIP", async () => {
    const { files } = await zipOf([]);
    expect(files.size).toBe(0);
  });
});
