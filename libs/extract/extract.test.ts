// Unit tests of @trove/extract on small HTML and text fixtures: no network, pages are strings and files.
import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { ExtractError, contentCapBytes, extractHtml, extractText } from "./index.ts";
import { capMarkdown } from "./truncate.ts";
import { parseDocument } from "./document.ts";
import { readArticle } from "./readable.ts";
import { words } from "./clean.ts";

const fixture = (name: string): string => readFileSync(join(import.meta.dir, "test", "fixtures", name), "utf8");
const bytes = (s: string): number => Buffer.byteLength(s, "utf8");
const fenceCount = (md: string): number => md.split("\n").filter((l) => /^\s*```/.test(l)).length;

// Enough prose for Readability to take the element for an article.
const PROSE = Array.from(
  { length: 5 },
  (_, i) =>
    `<p>Paragraph ${i + 1} tells a plain story about ordinary things, with commas, clauses and enough words that a reader would call it an article, not a caption.</p>`,
).join("\n");
const page = (article: string, head = "<title>Test page</title>"): string =>
  `<!DOCTYPE html><html lang="en"><head>${head}</head><body><main><article>${PROSE}${article}</article></main></body></html>`;

describe("extractHtml on an article page", () => {
  const url = "https://blog.example.test/posts/parsing-logs";
  const ex = extractHtml(fixture("article.html"), { url });
  const md = ex.markdown;

  test("metadata: title, favicon, byline, date, language, site", () => {
    expect(ex.title).toBe("Parsing Logs Quickly");
    expect(ex.favicon).toBe("https://blog.example.test/static/icon.png");
    expect(ex.byline).toBe("Ada Example");
    expect(ex.published).toBe("2024-03-05T09:30:00.000Z");
    expect(ex.lang).toBe("en");
    expect(ex.siteName).toBe("Example Engineering");
    expect(ex.excerpt).toBe("How we parse a gigabyte of logs per second.");
  });

  test("keeps the article text, including an article whose class contains 'shadow'", () => {
    expect(md).toContain("Our ingestion pipeline reads every log line the fleet produces");
    expect(md).toContain("the on-call rotation has had a quiet quarter.");
    expect(md).toContain("## Results");
  });

  test("fenced code blocks keep their language", () => {
    expect(md).toContain("```rust\nfn split(line: &str) -> Vec<&str> {\n    line.split(' ').collect()\n}\n```");
    expect(md).toContain("```python\ndef parse(line):\n    return line.split()\n```");
    expect(fenceCount(md) % 2).toBe(0);
  });

  test("tables render as GFM tables", () => {
    expect(md).toContain("| Parser | Lines per second |\n| --- | --- |\n| Old | 10,000 |\n| New | 1,000,000 |");
  });

  test("relative links and images become absolute", () => {
    expect(md).toContain("[documented parser](https://blog.example.test/docs/parser.html)");
    expect(md).toContain("![Pipeline diagram](https://blog.example.test/posts/images/diagram.png \"The pipeline\")");
    expect(md).not.toMatch(/\]\((?!https?:|mailto:)/);
  });

  test("media: images in document order, absolute https, srcset-only picked by size, pixels and data: dropped", () => {
    expect(ex.content.media).toEqual([
      {
        id: "m1",
        url: "https://blog.example.test/posts/images/diagram.png",
        alt: "Pipeline diagram",
        title: "The pipeline",
        width: 800,
        height: 400,
      },
      { id: "m2", url: "https://blog.example.test/images/chart.png", alt: "Throughput chart", title: "" },
      { id: "m3", url: "https://blog.example.test/images/team-1200.jpg", alt: "The team", title: "" },
      // http is upgraded, and the Markdown uses the same URL
      { id: "m4", url: "https://cdn.example.test/photos/rack.jpg", alt: "The rack", title: "" },
    ]);
    expect(md).toContain("![The rack](https://cdn.example.test/photos/rack.jpg)");
    expect(md).not.toContain("data:");
    expect(md).not.toContain("pixel.test");
  });

  test("navigation, header, footer, cookie banner, share buttons, ads, related posts and newsletter box are gone", () => {
    for (const junk of [
      "Blog home",
      "About our team",
      "We use cookies",
      "Tweet this",
      "Share on Facebook",
      "ShinyWidgets",
      "Advertisement",
      "Related posts",
      "Another story",
      "Subscribe to our newsletter",
      "Sign up",
      "Copyright 2024",
      "trackingEnabled",
      "color: black",
    ]) {
      expect(md).not.toContain(junk);
    }
  });

  test("content: schema v2, frontmatter, one main item, size and cap flags", () => {
    expect(ex.content.schemaVersion).toBe(2);
    expect(ex.content.meta.frontmatter).toEqual({
      title: "Parsing Logs Quickly",
      source: url,
      content_type: "article",
      byline: "Ada Example",
      published: "2024-03-05T09:30:00.000Z",
      lang: "en",
      site_name: "Example Engineering",
    });
    expect(Object.keys(ex.content.items)).toEqual(["main"]);
    expect(ex.content.items.main?.format).toBe("markdown");
    expect(ex.content.items.main?.markdown).toBe(md);
    expect(ex.content.items.main?.meta?.wordCount).toBeGreaterThan(150);
    expect(ex.content.items.main?.meta?.extractor).toBe("readability");
    expect(ex.size).toBe(bytes(md));
    expect(ex.truncated).toBe(false);
  });
});

describe("extractHtml details", () => {
  const url = "https://site.test/a/b.html";

  test("code languages from the usual highlighter conventions", () => {
    const md = extractHtml(
      page(`
        <pre data-lang="go"><code>package main</code></pre>
        <pre class="brush: js; gutter: false">let a = 1;</pre>
        <div class="highlight highlight-source-shell"><pre>echo hi</pre></div>
        <pre><code data-language="sql">SELECT 1;</code></pre>
        <pre><code class="hljs language-none">no language</code></pre>
        <pre><code>line one<br>line two</code></pre>`),
      { url },
    ).markdown;
    expect(md).toContain("```go\npackage main\n```");
    expect(md).toContain("```js\nlet a = 1;\n```");
    expect(md).toContain("```shell\necho hi\n```");
    expect(md).toContain("```sql\nSELECT 1;\n```");
    expect(md).toContain("```\nno language\n```");
    expect(md).toContain("```\nline one\nline two\n```");
  });

  test("a code block containing backtick fences gets a longer fence", () => {
    const md = extractHtml(page("<pre><code class='language-md'>```js\nx\n```</code></pre>"), { url }).markdown;
    expect(md).toContain("````md\n```js\nx\n```\n````");
  });

  test("task lists, strikethrough, and block content inside table cells", () => {
    const md = extractHtml(
      page(`
        <ul><li><input type="checkbox" checked> ship it</li><li><input type="checkbox"> write docs</li></ul>
        <p>This was <del>slow</del> fast.</p>
        <table><tr><th>Step</th><th>Notes</th></tr>
          <tr><td>Build</td><td><ul><li>compile</li><li>link</li></ul></td></tr></table>`),
      { url },
    ).markdown;
    expect(md).toContain("- [x] ship it");
    expect(md).toContain("- [ ] write docs");
    expect(md).toContain("~~slow~~");
    expect(md).toContain("| Step | Notes |\n| --- | --- |\n| Build | • compile  <br>• link |");
  });

  test("text that looks like HTML stays text", () => {
    const md = extractHtml(page("<p>Use the &lt;img&gt; element and a*b*c.</p>"), { url }).markdown;
    expect(md).toContain("Use the \\<img> element and a\\*b\\*c.");
  });

  test("class and id words are matched whole, not as substrings", () => {
    expect(words("shadow-lg")).toEqual(["shadow", "lg"]);
    expect(words("adContainer")).toEqual(["ad", "container"]);
    expect(words("div-gpt-ad-1234")).toEqual(["div", "gpt", "ad", "1234"]);
    const md = extractHtml(
      page(`
        <div class="download-box"><p>Download the dataset from the archive page.</p></div>
        <div class="headline-loaded"><p>Loaded headlines stay, because the word loaded holds the letters of ad without being the word ad, as whole-word matching sees.</p></div>
        <div class="social-share"><a href="/s">Share</a></div>`),
      { url },
    ).markdown;
    expect(md).toContain("Download the dataset");
    // (A paragraph long enough to be prose: shorter lines after the article's last paragraph count as its tail.)
    expect(md).toContain("Loaded headlines stay,");
    expect(md).not.toContain("[Share]");
  });

  test("title: og:title, else the <title> cleaned of its site name, else the host", () => {
    const withOg = page("", `<title>Story | Site</title><meta property="og:title" content="The Real Title">`);
    expect(extractHtml(withOg, { url }).title).toBe("The Real Title");
    const cleaned = page("", "<title>Why tests are worth writing | Example Site</title>");
    expect(extractHtml(cleaned, { url }).title).toBe("Why tests are worth writing");
    expect(extractHtml("<p>Just some text on a page.</p>", { url }).title).toBe("site.test");
  });

  test("favicon: apple-touch-icon when that is all, else /favicon.ico", () => {
    const touch = page("", `<title>x</title><link rel="apple-touch-icon" href="/touch.png">`);
    expect(extractHtml(touch, { url }).favicon).toBe("https://site.test/touch.png");
    expect(extractHtml(page(""), { url }).favicon).toBe("https://site.test/favicon.ico");
  });

  test("published from JSON-LD, or from a <time> in the article", () => {
    const ld = `<script type="application/ld+json">{"@context":"https://schema.org","@type":"NewsArticle","headline":"H","datePublished":"2023-01-02T03:04:05Z"}</script>`;
    expect(extractHtml(page("", ld), { url }).published).toBe("2023-01-02T03:04:05.000Z");
    const time = page('<p>Posted <time datetime="2022-12-24">Christmas Eve</time></p>');
    expect(extractHtml(time, { url }).published).toBe("2022-12-24");
  });

  test("a page's own relative <base> is honoured", () => {
    const html = `<html><head><base href="/docs/"></head><body><p>See <a href="x.html">the guide</a>.</p></body></html>`;
    expect(extractHtml(html, { url }).markdown).toContain("[the guide](https://site.test/docs/x.html)");
  });

  test("Readability finding nothing falls back to the cleaned body", () => {
    // Readability drops a heading that repeats the title, which leaves it nothing.
    const html = `<html><head><title>Closed until Monday</title></head><body><nav><a href="/">Home</a></nav><h1>Closed until Monday</h1><footer>© Shop</footer></body></html>`;
    const ex = extractHtml(html, { url });
    expect(ex.markdown).toBe("# Closed until Monday");
    expect(ex.content.items.main?.meta?.extractor).toBe("body");
  });

  test("an article far smaller than the page's text counts as Readability finding too little", () => {
    const html = `<html><body><article><p>${"A short teaser sentence. ".repeat(8)}</p></article></body></html>`;
    expect(readArticle(parseDocument(html, url), 300)).not.toBeNull();
    expect(readArticle(parseDocument(html, url), 5000)).toBeNull();
  });
});

describe("robustness", () => {
  const url = "https://site.test/";

  test("documents without <html>/<body>, fragments and broken markup", () => {
    expect(extractHtml("hello world", { url }).markdown).toBe("hello world");
    expect(extractHtml("<p>hi <b>there</b>", { url }).markdown).toBe("hi **there**");
    const noBody = extractHtml("<html><head><title>T</title></head><p>para one</p></html>", { url });
    expect(noBody.title).toBe("T");
    expect(noBody.markdown).toBe("para one");
    const broken = extractHtml("<div><p>unclosed <span>x</div></table><td>cell<tr><td>c2", { url });
    expect(broken.markdown).toContain("unclosed x");
    expect(broken.markdown).toContain("c2");
  });

  test("deep nesting and control characters do not break it", () => {
    const deep = `<html><body>${"<div>".repeat(5000)}deep text${"</div>".repeat(5000)}</body></html>`;
    expect(extractHtml(deep, { url }).markdown).toBe("deep text");
    expect(extractHtml("\u0000\u0001binary\u0002 junk", { url }).markdown).toBe("binary junk");
  });

  test("a page with no text at all is ExtractError empty", () => {
    for (const html of ["", "   ", "<!-- nothing -->", "<html><body><script>var a = 1;</script></body></html>"]) {
      expect(() => extractHtml(html, { url })).toThrow(ExtractError);
      try {
        extractHtml(html, { url });
      } catch (err) {
        expect((err as ExtractError).reason).toBe("empty");
      }
    }
  });

  test("a page with only an image is not empty; a repeated image is one media entry", () => {
    const ex = extractHtml("<body><img src='/a.png' alt='A'><img src='https://site.test/a.png' alt='A'></body>", { url });
    expect(ex.markdown).toBe("![A](https://site.test/a.png)![A](https://site.test/a.png)");
    expect(ex.content.media).toEqual([{ id: "m1", url: "https://site.test/a.png", alt: "A", title: "" }]);
  });
});

describe("content types", () => {
  const url = "https://files.test/notes/release-2.txt";

  test("anything but HTML, XHTML, plain text and Markdown is unsupported", () => {
    for (const contentType of ["application/pdf", "image/png", "application/json", "text/csv"]) {
      let reason = "";
      try {
        extractHtml("%PDF-1.7", { url, contentType });
      } catch (err) {
        if (err instanceof ExtractError) reason = err.reason;
      }
      expect(reason).toBe("unsupported_content_type");
    }
    expect(() => extractText("x", { url, contentType: "application/octet-stream" })).toThrow(ExtractError);
  });

  test("HTML and XHTML types with parameters are accepted", () => {
    expect(extractHtml("<p>x y</p>", { url, contentType: "text/html; charset=utf-8" }).markdown).toBe("x y");
    expect(extractHtml("<p>x y</p>", { url, contentType: "application/xhtml+xml" }).markdown).toBe("x y");
  });

  test("text/plain: escaped, paragraphs kept, first line as title", () => {
    const ex = extractText("Release notes\n\n  Version 2 fixes *stars* and\n# hashes\r\n\r\n\r\nThird paragraph.\n", {
      url,
      contentType: "text/plain; charset=utf-8",
    });
    expect(ex.title).toBe("Release notes");
    expect(ex.markdown).toBe("Release notes\n\nVersion 2 fixes \\*stars\\* and\n\\# hashes\n\nThird paragraph.");
    expect(ex.content.meta.frontmatter.content_type).toBe("text");
    expect(ex.content.media).toEqual([]);
    expect(ex.favicon).toBe("https://files.test/favicon.ico");
  });

  test("text/plain handed to extractHtml is routed to the text path", () => {
    expect(extractHtml("a <b> c", { url, contentType: "text/plain" }).markdown).toBe("a \\<b> c");
  });

  test("text/markdown: front matter read and removed, relative URLs absolute, images listed", () => {
    const md = [
      "---",
      'title: "Release 2"',
      "author: Ada",
      "date: 2024-05-01",
      "---",
      "# Heading",
      "",
      "See [the docs](../docs/index.md) and ![chart](img/chart.png \"Chart\").",
      "",
      "```js",
      "const link = '[x](relative)';",
      "```",
    ].join("\n");
    const ex = extractText(md, { url: "https://files.test/notes/release-2.md", contentType: "text/markdown" });
    expect(ex.title).toBe("Release 2");
    expect(ex.byline).toBe("Ada");
    expect(ex.published).toBe("2024-05-01");
    expect(ex.markdown).toContain("[the docs](https://files.test/docs/index.md)");
    expect(ex.markdown).toContain('![chart](https://files.test/notes/img/chart.png "Chart")');
    expect(ex.markdown).toContain("const link = '[x](relative)';");
    expect(ex.markdown.startsWith("# Heading")).toBe(true);
    expect(ex.content.media).toEqual([{ id: "m1", url: "https://files.test/notes/img/chart.png", alt: "chart", title: "Chart" }]);
  });

  test("empty text is ExtractError empty", () => {
    expect(() => extractText(" \n\n ", { url, contentType: "text/plain" })).toThrow(ExtractError);
  });
});

describe("the content cap", () => {
  test("is 512 KiB", () => {
    expect(contentCapBytes).toBe(512 * 1024);
  });

  test("Markdown that fits is untouched", () => {
    expect(capMarkdown("a\n\nb", 100)).toEqual({ markdown: "a\n\nb", truncated: false });
  });

  test("cuts between blocks, never inside a code block", () => {
    const md = "First paragraph.\n\n```js\nconst a = 1;\n\nconst b = 2;\n```\n\nLast paragraph.";
    const cut = capMarkdown(md, 30);
    expect(cut).toEqual({ markdown: "First paragraph.", truncated: true });
    const withCode = capMarkdown(md, bytes(md) - 5);
    expect(withCode.markdown).toBe("First paragraph.\n\n```js\nconst a = 1;\n\nconst b = 2;\n```");
  });

  test("an oversized first block is cut at a word or line and a code fence is closed", () => {
    const prose = capMarkdown("alpha beta gamma delta epsilon", 17);
    expect(prose).toEqual({ markdown: "alpha beta gamma", truncated: true });
    const code = capMarkdown("```py\nline_one = 1\nline_two = 2\nline_three = 3\n```", 40);
    expect(code.markdown).toBe("```py\nline_one = 1\nline_two = 2\n```");
    expect(bytes(code.markdown)).toBeLessThanOrEqual(40);
    const cjk = capMarkdown("漢字かな交じり文".repeat(10), 20);
    expect(bytes(cjk.markdown)).toBeLessThanOrEqual(20);
    expect(cjk.markdown).toBe("漢字かな交じ");
  });

  test("a page over the cap is cut cleanly end to end", () => {
    const para = (i: number): string =>
      `<p>Paragraph ${i} of a very long page, written out so that the Markdown grows well past the cap.</p>`;
    const blocks: string[] = [];
    for (let i = 0; i < 7000; i++) {
      blocks.push(para(i));
      if (i % 500 === 0) blocks.push(`<pre><code class="language-txt">${"code line\n".repeat(40)}</code></pre>`);
    }
    const ex = extractHtml(`<html><body><article>${blocks.join("")}</article></body></html>`, {
      url: "https://long.test/",
    });
    expect(ex.truncated).toBe(true);
    expect(ex.content.items.main?.meta?.truncated).toBe(true);
    expect(ex.size).toBe(bytes(ex.markdown));
    expect(ex.size).toBeLessThanOrEqual(contentCapBytes);
    expect(ex.size).toBeGreaterThan(contentCapBytes - 1024);
    expect(fenceCount(ex.markdown) % 2).toBe(0);
    expect(ex.markdown).toMatch(/(Paragraph \d+ of a very long page, written out so that the Markdown grows well past the cap\.|```)$/);
  });
});

describe("one oversized paragraph", () => {
  test("is cut inside at a word, keeping most of the budget, rather than dropped", () => {
    const words = Array.from({ length: 80_000 }, (_, i) => `word${i}`).join(" ");
    const x = extractHtml(`<html><body><article><h1>Big</h1><p>${words}</p></article></body></html>`, { url: "https://big.example.test/" });
    expect(x.truncated).toBe(true);
    expect(x.size).toBeLessThanOrEqual(contentCapBytes);
    expect(x.size).toBeGreaterThan(contentCapBytes * 0.9);
    expect(x.markdown).toContain("word1000 word1001");
    expect(x.markdown).toMatch(/word\d+$/);
  });
});
