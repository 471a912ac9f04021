import { describe, expect, test } from "bun:test";
import type { ExportRecord } from "@trove/contracts";
import { exportWriter } from "./formats.ts";
import { exportBytes, pagesOf, record, records } from "./test-fixtures.ts";

const exportedAt = 1767225600;
const text = (b: Uint8Array) => new TextDecoder("utf-8", { fatal: true }).decode(b);

async function jsonOf(rs: ExportRecord[], opts: { includeContent: boolean; includeNotes: boolean }, pageSize = 4) {
  const w = exportWriter("json", { ...opts, exportedAt });
  expect([w.contentType, w.extension]).toEqual(["application/json", "json"]);
  const out = text(await exportBytes(w, pagesOf(rs, pageSize)));
  expect(w.itemCount).toBe(rs.length);
  return out;
}

describe("JSON export", () => {
  test("one document: the header, then every record as the contract has it, whatever the pages", async () => {
    for (const pageSize of [1, 4, records.length]) {
      const out = await jsonOf(records, { includeContent: true, includeNotes: true }, pageSize);
      expect(JSON.parse(out)).toEqual({ format: "trove.items", version: 1, exportedAt, items: records });
      // One record a line, the header first: readable, and greppable.
      expect(out.startsWith('{"format":"trove.items","version":1,"exportedAt":1767225600,"items":[\n{"id":')).toBe(true);
      expect(out.split("\n").length).toBe(records.length + 3);
    }
  });

  test("note and content only when included; fields beyond the contract's are not written", async () => {
    const extra = { ...record(1, { note: "n", contentMarkdown: "c" }), secret: "internal" } as ExportRecord;
    const items = JSON.parse(await jsonOf([extra, ...records], { includeContent: false, includeNotes: false })).items as Record<string, unknown>[];
    expect(items.length).toBe(records.length + 1);
    for (const item of items) {
      expect("note" in item || "contentMarkdown" in item || "secret" in item).toBe(false);
      expect(Object.keys(item)).toEqual(["id", "url", "title", "status", "tags", "collections", "createdAt", "updatedAt", "processedAt", "contentExtractedAt", "source", "highlights"]);
    }
    const withNotes = JSON.parse(await jsonOf([extra], { includeContent: false, includeNotes: true })).items[0];
    expect(withNotes.note).toBe("n");
    expect("contentMarkdown" in withNotes).toBe(false);
  });

  test("an export of nothing is a valid document with no items", async () => {
    expect(JSON.parse(await jsonOf([], { includeContent: true, includeNotes: true }))).toEqual({ format: "trove.items", version: 1, exportedAt, items: [] });
  });
});
