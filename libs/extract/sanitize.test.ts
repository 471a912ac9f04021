// Real: the extraction entry points on pages holding what PostgreSQL cannot store.
import { describe, expect, test } from "bun:test";
import { extractHtml, extractText } from "./index.ts";

const loneSurrogate = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
/** What jsonb and text columns accept: no NUL, no lone surrogate. */
const storable = (s: string) => !s.includes("\u0000") && !loneSurrogate.test(s);

const words = "enough words here to make this paragraph the readable part of the page for the extractor";

describe("page text cleaning", () => {
  test("an HTML page: NUL characters are dropped, lone surrogates become U+FFFD, pairs stay", () => {
    const html = `<html><head><title>Ti\u0000tle \ud800</title></head><body><article><h1>Head</h1>
      <p>Lone \ud800 high, lone \udc00 low, NUL\u0000 gone, a real pair \ud83d\ude00 kept, ${words}.</p>
      <p><img src="/a.png" alt="al\u0000t \udfff"> ${words}.</p></article></body></html>`;
    const x = extractHtml(html, { url: "https://a.test/page" });
    expect(x.title).toBe("Title \ufffd");
    expect(x.markdown).toContain("Lone \ufffd high, lone \ufffd low, NUL gone, a real pair \ud83d\ude00 kept");
    expect(storable(x.markdown)).toBe(true);
    expect(storable(JSON.stringify(x.content))).toBe(true);
    expect(JSON.stringify(x.content)).not.toMatch(/\\u(0000|d[89a-f][0-9a-f]{2})/i);
    expect(x.content.media[0]).toMatchObject({ alt: "alt \ufffd" });
  });

  test("a text/plain page is cleaned the same way", () => {
    const x = extractText("first line \ud800\nsecond\u0000 line", { url: "https://a.test/notes.txt", contentType: "text/plain" });
    expect(x.markdown).toContain("first line \ufffd");
    expect(x.markdown).toContain("second line");
    expect(storable(x.markdown) && storable(JSON.stringify(x.content))).toBe(true);
  });

  test("a text/markdown page handed to extractHtml (whatever the server said) is cleaned too", () => {
    const x = extractHtml("# Title\u0000\n\nbody \udc00", { url: "https://a.test/readme.md", contentType: "text/markdown" });
    expect(x.markdown).toContain("body \ufffd");
    expect(storable(x.markdown)).toBe(true);
  });
});
