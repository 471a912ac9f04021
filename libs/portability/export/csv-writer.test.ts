// The CSV read back with a real parser (csv-parse) held to RFC 4180: CRLF records, quoted fields.
import { describe, expect, test } from "bun:test";
import { parse } from "csv-parse/sync";
import type { ExportRecord } from "@trove/contracts";
import { csvCell } from "./csv-writer.ts";
import { exportWriter } from "./formats.ts";
import { exportBytes, pagesOf, records } from "./test-fixtures.ts";

const iso = (s: number | null) => (s === null ? "" : new Date(s * 1000).toISOString());
const decode = (b: Uint8Array) => new TextDecoder("utf-8", { fatal: true }).decode(b);

async function csvOf(rs: ExportRecord[], opts: { includeContent: boolean; includeNotes: boolean }) {
  const w = exportWriter("csv", { ...opts, exportedAt: 1767225600 });
  expect([w.contentType, w.extension]).toEqual(["text/csv; charset=utf-8", "csv"]);
  const text = decode(await exportBytes(w, pagesOf(rs, 3)));
  expect(w.itemCount).toBe(rs.length);
  expect(text.endsWith("\r\n")).toBe(true);
  return { text, rows: parse(text, { record_delimiter: "\r\n", relax_column_count: false }) as string[][] };
}

/** What a spreadsheet must see: formula starts (after any leading whitespace) behind a quote. */
const neutral = (s: string) => (/^(?:[\t\r]|\s*[=+\-@])/.test(s) ? `'${s}` : s);

describe("CSV export", () => {
  test("header, then one row per record with every cell as written, through a real parser", async () => {
    const { rows } = await csvOf(records, { includeContent: true, includeNotes: true });
    expect(rows[0]).toEqual(["id", "url", "title", "status", "tags", "collections", "created_at", "updated_at", "processed_at", "source", "note", "highlights_count", "content_markdown"]);
    expect(rows.slice(1)).toEqual(
      records.map((r) =>
        [r.id, r.url, r.title, r.status, r.tags.join("|"), r.collections.join("|"), iso(r.createdAt), iso(r.updatedAt), iso(r.processedAt), r.source ?? "", r.note ?? "", String(r.highlights.length), r.contentMarkdown ?? ""].map(neutral),
      ),
    );
    // The cases spelled out: commas, quotes, CR LF, unicode come back exactly; formulas come back as text.
    const title = (n: number) => rows[n]![2];
    expect(title(27)).toBe('CSV, "quoted" and\r\nnewlines\nand ünïcödé 東京 🧑‍💻');
    expect([title(21), title(22), title(23), title(24), title(25), title(26)]).toEqual(["'=SUM(A1)", "'-1+2", "'@x", "'\tx", "'\rx", "'+x"]);
    expect(rows[21]![1]).toBe('https://example.com/?q=a,b&c="d"');
    expect(rows[22]![10]).toBe("'@mention");
    expect(rows[23]![4]).toBe("'=cmd|' /C calc'!A0");
    expect(rows[26]![9]).toBe("'-source");
    expect(rows[18]![4]).toBe("true|null|2024-01-01|- dash");
  });

  test("no note column without notes, no content column without content", async () => {
    const { rows } = await csvOf(records, { includeContent: false, includeNotes: false });
    expect(rows[0]).toEqual(["id", "url", "title", "status", "tags", "collections", "created_at", "updated_at", "processed_at", "source", "highlights_count"]);
    expect(rows.length).toBe(records.length + 1);
    expect(rows[1]!.at(-1)).toBe("2");
    expect(rows.flat()).not.toContain(records[0]!.note);
  });

  test("an export of nothing is the header alone", async () => {
    const { text } = await csvOf([], { includeContent: false, includeNotes: true });
    expect(text).toBe("id,url,title,status,tags,collections,created_at,updated_at,processed_at,source,note,highlights_count\r\n");
  });

  test("cells: quoted only when needed, quotes doubled, formula starts neutralised", () => {
    expect(csvCell("plain ünïcödé")).toBe("plain ünïcödé");
    expect(csvCell("")).toBe("");
    expect(csvCell('say "hi"')).toBe('"say ""hi"""');
    expect(csvCell("a,b")).toBe('"a,b"');
    expect(csvCell("a\nb")).toBe('"a\nb"');
    expect(csvCell("=SUM(A1)")).toBe("'=SUM(A1)");
    expect(csvCell("=HYPERLINK(\"x\",\"y\")")).toBe("\"'=HYPERLINK(\"\"x\"\",\"\"y\"\")\"");
    expect(csvCell("\rx")).toBe("\"'\rx\"");
    expect(csvCell("a=b")).toBe("a=b");
  });

  test("a formula after leading spaces, tabs or line ends is neutralised too; text that only holds one is not", () => {
    expect(csvCell("  =1+1")).toBe("'  =1+1");
    expect(csvCell("\n=cmd|' /C calc'!A0")).toBe("\"'\n=cmd|' /C calc'!A0\"");
    expect(csvCell("\r\n@SUM(A1)")).toBe("\"'\r\n@SUM(A1)\"");
    expect(csvCell(" \u00a0+1")).toBe("' \u00a0+1");
    expect(csvCell(" -x")).toBe("' -x");
    expect(csvCell("  plain = text")).toBe("  plain = text");
    expect(csvCell(" ".repeat(100_000))).toBe(" ".repeat(100_000));
  });
});
