import { describe, expect, test } from "bun:test";
import { AppError } from "@trove/errors";
import { cutBytes, overview, searchWindows, sliceLines } from "./index.ts";

const doc = ["# Title", "", "Intro line", "```md", "# not a heading", "```", "## Part two", "needle here", "more", "### Deep", "end needle"].join("\n");

describe("overview", () => {
  test("counts and the heading outline, skipping fenced code", () => {
    const o = overview(doc);
    expect(o.lineCount).toBe(11);
    expect(o.headings).toEqual([
      { level: 1, text: "Title", line: 1 },
      { level: 2, text: "Part two", line: 7 },
      { level: 3, text: "Deep", line: 10 },
    ]);
    expect(o.wordCount).toBeGreaterThan(10);
  });
});

describe("sliceLines", () => {
  test("1-based inclusive ranges, cut at the end of the document", () => {
    expect(sliceLines(doc, "7:8").text).toBe("## Part two\nneedle here");
    expect(sliceLines(doc, "10:50")).toMatchObject({ startLine: 10, endLine: 11, text: "### Deep\nend needle" });
  });

  test("more than 200 lines or 32 KB answers range_too_large", () => {
    const err = (() => {
      try {
        sliceLines(doc, "1:201");
      } catch (e) {
        return e as AppError;
      }
    })();
    expect(err?.code).toBe("range_too_large");
    const wide = Array.from({ length: 10 }, () => "x".repeat(4000)).join("\n");
    expect(() => sliceLines(wide, "1:10")).toThrow(/bytes/);
  });

  test.each(["a:b", "0:3", "5:2", "3"])("bad range %s answers validation_failed", (raw) => {
    try {
      sliceLines(doc, raw);
      throw new Error("expected failure");
    } catch (e) {
      expect((e as AppError).code).toBe("validation_failed");
    }
  });
});

describe("searchWindows", () => {
  test("windows around matches, merged when they touch", () => {
    const r = searchWindows(doc, "NEEDLE", { contextLines: 0 });
    expect(r.matchCount).toBe(2);
    expect(r.windows.map((w) => [w.startLine, w.endLine, w.text])).toEqual([
      [8, 8, "needle here"],
      [11, 11, "end needle"],
    ]);
    // Adjacent windows (7-9 and 10-11) join into one.
    const merged = searchWindows(doc, "needle", { contextLines: 1 });
    expect(merged.windows.length).toBe(1);
    expect(merged.windows[0]).toMatchObject({ startLine: 7, endLine: 11, matchLines: [8, 11] });
    expect(merged.windows[0]!.text.split("\n").length).toBe(5);
  });

  test("stays within 200 lines and 16 KB, and says it was cut", () => {
    const big = Array.from({ length: 2000 }, (_, i) => (i % 3 === 0 ? `hit ${i} ${"y".repeat(100)}` : `line ${i}`)).join("\n");
    const r = searchWindows(big, "hit", { contextLines: 1, limit: 1000 });
    const lines = r.windows.reduce((n, w) => n + (w.endLine - w.startLine + 1), 0);
    const bytes = r.windows.reduce((n, w) => n + Buffer.byteLength(w.text), 0);
    expect(lines).toBeLessThanOrEqual(200);
    expect(bytes).toBeLessThanOrEqual(16 * 1024);
    expect(r.truncated).toBe(true);
  });
});

describe("cutBytes", () => {
  test("cuts on a character boundary, never past the limit", () => {
    const text = "aé🍮b".repeat(50);
    for (let max = 0; max <= 120; max++) {
      const { text: cut, truncated } = cutBytes(text, max);
      expect(Buffer.byteLength(cut)).toBeLessThanOrEqual(max);
      expect(Buffer.byteLength(cut)).toBeGreaterThan(max - 4);
      expect(text.startsWith(cut)).toBe(true);
      expect(truncated).toBe(true);
    }
  });

  test("a text that fits is kept whole", () => {
    expect(cutBytes("héllo", 6)).toEqual({ text: "héllo", truncated: false });
    expect(cutBytes("héllo", 5)).toEqual({ text: "héll", truncated: true });
    expect(cutBytes("", 0)).toEqual({ text: "", truncated: false });
  });
});
