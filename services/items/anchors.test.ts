// Unit: locating highlights. The brute-force reference is the rule as documented (most prefix plus suffix
// characters matching, the first occurrence winning ties); the hostile shape is held to a linear work bound.
import { describe, expect, test } from "bun:test";
import { locate, type LocateStats } from "./anchors.ts";

function reference(md: string, text: string, prefix = "", suffix = ""): { start: number; end: number } | null {
  let best: { start: number; score: number } | null = null;
  for (let at = md.indexOf(text); at !== -1 && text; at = md.indexOf(text, at + 1)) {
    let p = 0;
    while (p < prefix.length && at - 1 - p >= 0 && md[at - 1 - p] === prefix[prefix.length - 1 - p]) p++;
    let s = 0;
    while (s < suffix.length && at + text.length + s < md.length && md[at + text.length + s] === suffix[s]) s++;
    if (!best || p + s > best.score) best = { start: at, score: p + s };
  }
  return best ? { start: best.start, end: best.start + text.length } : null;
}

// A small deterministic generator, so a failure names its case.
function* cases(count: number) {
  let seed = 7;
  const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
  const word = (len: number) => Array.from({ length: len }, () => "ab"[next() % 2]).join("");
  for (let i = 0; i < count; i++) {
    const md = word(5 + (next() % 60));
    yield { md, text: word(1 + (next() % 3)), prefix: word(next() % 6), suffix: word(next() % 6) };
  }
}

describe("locate", () => {
  test("agrees with the rule on 5,000 generated cases", () => {
    for (const c of cases(5_000)) expect({ c, at: locate(c.md, c) }).toEqual({ c, at: reference(c.md, c.text, c.prefix, c.suffix) });
  });

  test("text that is not there, empty text, or text longer than the content: null", () => {
    expect(locate("hello world", { text: "nope" })).toBeNull();
    expect(locate("hello world", { text: "" })).toBeNull();
    expect(locate("hi", { text: "hi there" })).toBeNull();
  });

  test("anchors pick the occurrence; without them the first one wins", () => {
    const md = "the cat sat. the cat ran. the cat hid.";
    expect(locate(md, { text: "the cat" })).toEqual({ start: 0, end: 7 });
    expect(locate(md, { text: "the cat", prefix: "sat. ", suffix: " ran" })).toEqual({ start: 13, end: 20 });
    expect(locate(md, { text: "the cat", suffix: " hid" })).toEqual({ start: 26, end: 33 });
  });

  test("UTF-16 offsets: text after astral characters", () => {
    const md = "😀😀 naïve café";
    expect(locate(md, { text: "café" })).toEqual({ start: md.indexOf("café"), end: md.indexOf("café") + 4 });
  });

  test("the hostile shape (one character, 2,000-character anchors, 512 KB of it) does linear work", () => {
    const n = 512 * 1024;
    const md = "a".repeat(n);
    const anchors = "a".repeat(2_000);
    const stats: LocateStats = { comparisons: 0 };
    // The first place where both anchors match in full.
    expect(locate(md, { text: "a", prefix: anchors, suffix: anchors }, stats)).toEqual({ start: 2_000, end: 2_001 });
    // Three passes of at most 2 (m + n) comparisons each; the quadratic search did about 2 * 10^9.
    expect(stats.comparisons).toBeLessThanOrEqual(3 * 2 * (n + 2_001));
  });

  test("a long text with many near-misses does linear work too", () => {
    const md = "ab".repeat(200_000);
    const text = "ab".repeat(5_000) + "b";
    const stats: LocateStats = { comparisons: 0 };
    expect(locate(md, { text, prefix: "b".repeat(2_000), suffix: "a".repeat(2_000) }, stats)).toBeNull();
    expect(stats.comparisons).toBeLessThanOrEqual(2 * (md.length + text.length));
  });
});
