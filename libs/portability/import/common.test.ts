// What every parser relies on: times in any unit, tag lists in any spelling, web URLs only, storable strings,
// the entry and error limits, and the archived/favourite mapping.
import { describe, expect, test } from "bun:test";
import { EntryCollector, favouriteTag, statusFor } from "./collect.ts";
import { resolveLimits } from "./limits.ts";
import { splitTagText } from "./tags.ts";
import { clampText, cleanText } from "./text.ts";
import { unixSeconds } from "./time.ts";
import { checkWebUrl } from "./url.ts";

describe("unixSeconds", () => {
  test("seconds, milliseconds and microseconds, as numbers or digit strings", () => {
    expect(unixSeconds(1_700_000_000)).toBe(1_700_000_000);
    expect(unixSeconds("1700000000")).toBe(1_700_000_000);
    expect(unixSeconds(1_700_000_000_123)).toBe(1_700_000_000);
    expect(unixSeconds("1700000000123456")).toBe(1_700_000_000);
    expect(unixSeconds(1_700_000_000.9)).toBe(1_700_000_000);
  });

  test("ISO strings with Z, offsets with and without a colon, a space separator, no zone (UTC)", () => {
    const at = Date.UTC(2024, 4, 1, 10, 11, 12) / 1000;
    expect(unixSeconds("2024-05-01T10:11:12Z")).toBe(at);
    expect(unixSeconds("2024-05-01T12:11:12+02:00")).toBe(at);
    expect(unixSeconds("2024-05-01T12:11:12+0200")).toBe(at);
    expect(unixSeconds("2024-05-01 10:11:12+00:00")).toBe(at);
    expect(unixSeconds("2024-05-01T10:11:12.999")).toBe(at);
    expect(unixSeconds("2024-05-01")).toBe(Date.UTC(2024, 4, 1) / 1000);
  });

  test("unreadable, zero, negative and past-9999 times are undefined", () => {
    for (const value of ["", "soon", "May 2", "0", 0, -1, "-5", 1e22, "10000-01-01T00:00:00Z", Number.NaN, null, undefined, {}, true]) {
      expect(unixSeconds(value)).toBeUndefined();
    }
    expect(unixSeconds("9999-12-31T23:59:59Z")).toBe(253_402_300_799);
  });
});

describe("tag lists", () => {
  test("separated text, JSON lists and Python lists", () => {
    expect(splitTagText("a|b| c", "|")).toEqual(["a", "b", " c"]);
    expect(splitTagText('["x","y, z"]', ",")).toEqual(["x", "y, z"]);
    expect(splitTagText(`['it\\'s', "say \\"hi\\"", 'caf\\u00e9']`, ",")).toEqual(["it's", 'say "hi"', "café"]);
    expect(splitTagText("[]", ",")).toEqual([]);
    expect(splitTagText("[bare, words]", ",")).toEqual(["bare", "words"]);
  });

  test("the collector trims, drops empties, dedupes case-insensitively, clamps length and count", () => {
    const out = new EntryCollector(resolveLimits({ maxTagLength: 5, maxTags: 3 }));
    out.add(0, { url: "https://t.example/", tags: [" News ", "news", "", "NEWS", "toolongtag", "b", "c", "d"] });
    expect(out.result().entries[0]?.tags).toEqual(["News", "toolo", "b"]);
  });
});

describe("web URLs", () => {
  test("http and https are kept as written (trimmed, not normalised)", () => {
    expect(checkWebUrl("  HTTPS://Example.COM/a/../b?q=1#frag ", 8192)).toEqual({ ok: true, url: "HTTPS://Example.COM/a/../b?q=1#frag" });
    expect(checkWebUrl("http://[::1]:8080/", 8192)).toEqual({ ok: true, url: "http://[::1]:8080/" });
  });

  test("other schemes, relative, empty, non-string and overlong URLs are refused with a reason", () => {
    expect(checkWebUrl("javascript:alert(1)", 8192)).toEqual({ ok: false, reason: "not a web address (javascript: URL)" });
    expect(checkWebUrl("data:text/html,hi", 8192)).toEqual({ ok: false, reason: "not a web address (data: URL)" });
    expect(checkWebUrl("/relative/path", 8192)).toEqual({ ok: false, reason: "not a valid URL" });
    expect(checkWebUrl("   ", 8192)).toEqual({ ok: false, reason: "no URL" });
    expect(checkWebUrl(42, 8192)).toEqual({ ok: false, reason: "no URL" });
    expect(checkWebUrl(`https://a.example/${"x".repeat(100)}`, 50)).toEqual({ ok: false, reason: "URL longer than 50 characters" });
  });
});

describe("storable text", () => {
  test("NUL removed, lone surrogates replaced, pairs kept", () => {
    expect(cleanText("a\u0000b\ud800c\udfffd\ud83d\ude00")).toBe("ab\ufffdc\ufffdd\ud83d\ude00");
  });

  test("clamping never splits a surrogate pair", () => {
    expect(clampText("ab😀", 3)).toBe("ab");
    expect(clampText("ab😀", 4)).toBe("ab😀");
    expect(clampText("abc", 10)).toBe("abc");
  });

  test("notes and highlights are clamped to their limits", () => {
    const out = new EntryCollector(resolveLimits({ maxNoteLength: 10, maxHighlightLength: 4, maxHighlights: 1 }));
    out.add(0, { url: "https://c.example/", note: "0123456789abc", highlights: [{ text: "abcdef", note: "0123456789abc" }, { text: "second" }] });
    expect(out.result().entries[0]).toMatchObject({ note: "0123456789", highlights: [{ text: "abcd", note: "0123456789" }] });
  });
});

describe("the collector's limits", () => {
  test("more() stops at maxEntries and marks the result truncated", () => {
    const out = new EntryCollector(resolveLimits({ maxEntries: 2 }), "import:test");
    let read = 0;
    for (let i = 0; i < 5; i++) {
      if (!out.more()) break;
      out.add(i, { url: `https://l.example/${i}` });
      read++;
    }
    expect(read).toBe(2);
    expect(out.result()).toEqual({
      entries: [
        { url: "https://l.example/0", source: "import:test" },
        { url: "https://l.example/1", source: "import:test" },
      ],
      errors: [],
      truncated: "the file holds more than 2 entries; only the first 2 were read",
    });
  });

  test("exactly maxEntries entries is not truncated", () => {
    const out = new EntryCollector(resolveLimits({ maxEntries: 1 }));
    out.add(0, { url: "https://l.example/" });
    expect(out.result().truncated).toBeUndefined();
  });

  test("errors past maxErrors are counted in one closing error", () => {
    const out = new EntryCollector(resolveLimits({ maxErrors: 2 }));
    for (let i = 0; i < 5; i++) out.add(i, { url: "" }, `line ${i + 2}`);
    expect(out.result().errors).toEqual([
      { index: 0, reason: "no URL", hint: "line 2" },
      { index: 1, reason: "no URL", hint: "line 3" },
      { index: 2, reason: "3 more entries could not be read (not listed)" },
    ]);
  });
});

describe("archived and favourite", () => {
  test("archived wins the status, a favourite is flagged, both: archived plus the favorite tag", () => {
    expect(statusFor(false, false)).toEqual({ status: "stashed", tags: [] });
    expect(statusFor(false, true)).toEqual({ status: "flagged", tags: [] });
    expect(statusFor(true, false)).toEqual({ status: "archived", tags: [] });
    expect(statusFor(true, true)).toEqual({ status: "archived", tags: [favouriteTag] });
    expect(favouriteTag).toBe("favorite");
  });
});
