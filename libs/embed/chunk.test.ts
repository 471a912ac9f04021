import { describe, expect, test } from "bun:test";
import { chunkDefaults, chunkDocument, clamp, embedLimits, plainText } from "./index.ts";

const numbered = (n: number, from = 0): string => Array.from({ length: n }, (_, i) => `w${from + i}`).join(" ");
const isWellFormed = (s: string): boolean => !/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/.test(s);

describe("chunkDocument", () => {
  test("the title alone first, then overlapping windows of the body", () => {
    const chunks = chunkDocument({ title: "A title", body: numbered(25) }, { windowWords: 10, overlapWords: 3 });
    expect(chunks[0]).toEqual({ index: 0, kind: "title", text: "A title" });
    // Windows of ten words, each starting seven after the one before (three repeated), the last one shorter.
    expect(chunks.slice(1).map((c) => c.text)).toEqual([numbered(10, 0), numbered(10, 7), numbered(10, 14), numbered(4, 21)]);
    expect(chunks.map((c) => c.kind)).toEqual(["title", "body", "body", "body", "body"]);
    expect(chunks.map((c) => c.index)).toEqual([0, 1, 2, 3, 4]);
  });

  test("no title, no body, or neither", () => {
    expect(chunkDocument({ title: "", body: "one two" })).toEqual([{ index: 0, kind: "body", text: "one two" }]);
    expect(chunkDocument({ title: "Only a title", body: null })).toEqual([{ index: 0, kind: "title", text: "Only a title" }]);
    expect(chunkDocument({ title: "  ", body: " \n\t " })).toEqual([]);
    expect(chunkDocument({})).toEqual([]);
  });

  test("a long document stops at maxChunks (title included); the default is 32", () => {
    const body = numbered(20_000);
    const chunks = chunkDocument({ title: "Long", body });
    expect(chunks).toHaveLength(chunkDefaults.maxChunks);
    expect(chunks.at(-1)!.text.split(" ")).toHaveLength(chunkDefaults.windowWords);
    expect(chunkDocument({ title: "Long", body }, { maxChunks: 3 })).toHaveLength(3);
  });

  test("deterministic: the same input gives the same chunks", () => {
    const doc = { title: "Cars", body: "# Heading\n\nSome *text* about [automobiles](https://x.example.test/a). ".repeat(100) };
    expect(chunkDocument(doc)).toEqual(chunkDocument(structuredClone(doc)));
  });

  test("whitespace of any kind separates words; chunks join them with one space", () => {
    const chunks = chunkDocument({ body: "a\u00a0b\u2003c\n\nd\r\ne\tf" }, { windowWords: 3, overlapWords: 0 });
    expect(chunks.map((c) => c.text)).toEqual(["a b c", "d e f"]);
  });

  test("unicode: long runs without spaces are split between characters, never inside a surrogate pair", () => {
    const emoji = "🚗".repeat(3_000); // 6,000 UTF-16 units, no space
    const cjk = "汽車的歷史".repeat(1_000);
    const family = "👨‍👩‍👧‍👦".repeat(500); // ZWJ sequences: one grapheme is 11 code units
    const accents = "e\u0301".repeat(2_000);
    for (const body of [emoji, cjk, family, accents, `${emoji} ${cjk}`]) {
      const chunks = chunkDocument({ title: emoji, body });
      expect(chunks.length).toBeGreaterThan(1);
      for (const c of chunks) {
        expect(isWellFormed(c.text)).toBe(true);
        expect(c.text.length).toBeLessThanOrEqual(chunkDefaults.maxChars);
        expect(c.text.length).toBeLessThanOrEqual(embedLimits.maxTextChars);
      }
    }
    // Whole graphemes stay whole: no chunk starts with a combining accent or a joiner.
    for (const c of chunkDocument({ body: accents })) expect(c.text.startsWith("\u0301")).toBe(false);
    for (const c of chunkDocument({ body: family })) for (const w of c.text.split(" ")) expect(w).toMatch(/^(?:👨‍👩‍👧‍👦)+$/u);
  });

  test("every chunk fits the embed task: at most maxChars, even with very long words", () => {
    const body = Array.from({ length: 500 }, (_, i) => "x".repeat(30 + (i % 11))).join(" ");
    for (const c of chunkDocument({ title: "t".repeat(10_000), body })) expect(c.text.length).toBeLessThanOrEqual(chunkDefaults.maxChars);
  });

  test("refuses options that could not make progress", () => {
    expect(() => chunkDocument({ body: "a b" }, { windowWords: 4, overlapWords: 4 })).toThrow(RangeError);
    expect(() => chunkDocument({ body: "a b" }, { windowWords: 0 })).toThrow(RangeError);
    expect(() => chunkDocument({ body: "a b" }, { maxChunks: 0 })).toThrow(RangeError);
  });
});

describe("plainText", () => {
  test("keeps what a reader reads of Markdown: link and alt text, code; drops addresses and markup", () => {
    const md = [
      "## A *heading*",
      "> quoted **bold** text",
      "- an item with [a link](https://x.example.test/page) and ![a picture](https://x.example.test/p.png)",
      "1. see https://x.example.test/raw",
      "| cell | cell |",
      "```ts",
      "const car = 1;",
      "```",
      "[ref]: https://x.example.test/ref",
      "<span>inline</span> `code`",
    ].join("\n");
    const words = plainText(md).split(/\s+/).filter(Boolean);
    expect(words).toEqual(["A", "heading", "quoted", "bold", "text", "an", "item", "with", "a", "link", "and", "a", "picture", "see", "cell", "cell", "const", "car", "=", "1;", "inline", "code"]);
  });
});

test("clamp never cuts a surrogate pair", () => {
  expect(clamp("ab🚗", 3)).toBe("ab");
  expect(clamp("ab🚗", 4)).toBe("ab🚗");
  expect(clamp("abc", 10)).toBe("abc");
});
