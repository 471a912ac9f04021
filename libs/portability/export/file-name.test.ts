import { describe, expect, test } from "bun:test";
import { slugBytes, slugFileName } from "./file-name.ts";

const id = "0190b2c4-7e1a-7000-8000-000000000001";
const md = (title: string, folder?: string) => slugFileName(title, id, { folder, fallback: "item", ext: "md" });
const bytes = (s: string) => new TextEncoder().encode(s).length;

describe("slugFileName", () => {
  test("keeps letters and digits of any script, lower case, one dash for every other run", () => {
    expect(md("Hello, World! 2024")).toBe(`hello-world-2024-${id}.md`);
    expect(md("Café naïve — 東京の会議メモ 🧠")).toBe(`café-naïve-東京の会議メモ-${id}.md`);
    expect(md("עברית: כותרת")).toBe(`עברית-כותרת-${id}.md`);
    expect(md("ＦＵＬＬ　ｗｉｄｔｈ")).toBe(`full-width-${id}.md`);
  });

  test("no separator, no dot-name, no device name survives", () => {
    expect(md("../../etc/passwd")).toBe(`etc-passwd-${id}.md`);
    expect(md("a/b\\c:d*e?f\"g<h>i|j")).toBe(`a-b-c-d-e-f-g-h-i-j-${id}.md`);
    expect(md(".hidden")).toBe(`hidden-${id}.md`);
    expect(md("CON")).toBe(`con-${id}.md`);
  });

  test("a title that leaves nothing gives the fallback", () => {
    for (const t of ["", "..", "🎉🚀🔥", "   ", "\u0301\u0301"]) expect(md(t)).toBe(`item-${id}.md`);
    expect(slugFileName("", id, { fallback: "note", ext: "txt" })).toBe(`note-${id}.txt`);
  });

  test("the folder goes first", () => {
    expect(md("Old", "archived")).toBe(`archived/old-${id}.md`);
  });

  test("a long title is cut at whole characters to at most slugBytes bytes, never ending in a dash", () => {
    const title = "Ein sehr langer Titel über Käse und 東京 ".repeat(20);
    const slug = md(title).slice(0, -`-${id}.md`.length);
    expect(bytes(slug)).toBeLessThanOrEqual(slugBytes);
    expect(bytes(slug)).toBeGreaterThan(slugBytes - 4);
    expect("ein-sehr-langer-titel-über-käse-und-東京-".repeat(20).startsWith(slug)).toBe(true);
    expect(slug.endsWith("-")).toBe(false);
    // A letter with a combining mark it has no composed form with (3 bytes) is one character: never split.
    const marked = md("x\u0301".repeat(60)).slice(0, -`-${id}.md`.length);
    expect(marked).toBe("x\u0301".repeat(Math.floor(slugBytes / 3)));
  });
});
