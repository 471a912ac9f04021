// The limits on one page's extraction: the element budget (in the pipeline itself) and, on a real worker pool
// running test/worker.ts, the deadline and the pool's refusals, all as ExtractError reasons. No timing is
// measured: the slow page is one that takes seconds where the deadline is a millisecond.
import { afterEach, describe, expect, test } from "bun:test";
import { WorkerPool } from "@trove/workers";
import { ExtractError, extractHtml, pageElementLimit, poolExtractor, type ExtractErrorReason } from "./index.ts";

const url = "https://limits.example.test/page";

/** A page of `n` `<div><a>` blocks: 2n + 5 elements, the shape that costs Readability most per byte. */
function linkBlocks(n: number): string {
  return `<html><head><title>Blocks</title></head><body>${"<div><a href='/x'>link text</a></div>".repeat(n)}</body></html>`;
}

const article = `<html><head><title>A short article</title></head><body><article><h1>A short article</h1>
<p>${"Words that make up a paragraph of an ordinary article, long enough to be read. ".repeat(12)}</p>
<p>${"A second paragraph with different words in it, so that there is some structure. ".repeat(8)}</p>
</article></body></html>`;

async function reason(work: Promise<unknown>): Promise<ExtractErrorReason | "resolved"> {
  try {
    await work;
    return "resolved";
  } catch (err) {
    expect(err).toBeInstanceOf(ExtractError);
    return (err as ExtractError).reason;
  }
}

function syncReason(fn: () => unknown): ExtractErrorReason | "returned" {
  try {
    fn();
    return "returned";
  } catch (err) {
    expect(err).toBeInstanceOf(ExtractError);
    return (err as ExtractError).reason;
  }
}

describe("the element budget", () => {
  test("is 50,000 elements", () => {
    expect(pageElementLimit).toBe(50_000);
  });

  test("a page over it is ExtractError page_too_complex, naming its element count", () => {
    const html = linkBlocks(pageElementLimit / 2);
    let err: unknown;
    try {
      extractHtml(html, { url });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ExtractError);
    expect((err as ExtractError).reason).toBe("page_too_complex");
    expect((err as ExtractError).message).toBe(`page_too_complex: the page has ${pageElementLimit + 5} elements; at most ${pageElementLimit} are extracted`);
  });

  test("counts the parsed elements against maxElements: one over refuses, at the budget extracts", () => {
    const html = linkBlocks(10); // 25 elements
    expect(syncReason(() => extractHtml(html, { url, maxElements: 24 }))).toBe("page_too_complex");
    expect(extractHtml(html, { url, maxElements: 25 }).markdown).toContain("[link text](https://limits.example.test/x)");
  });

  test("plain text and Markdown have no elements to count", () => {
    expect(extractHtml("<p>not markup</p>".repeat(50), { url, contentType: "text/plain", maxElements: 1 }).markdown).toContain("not markup");
  });
});

describe("extraction on a worker pool", () => {
  const pools: WorkerPool[] = [];
  const newPool = (maxQueue?: number) => {
    const p = new WorkerPool({ script: new URL("./test/worker.ts", import.meta.url), size: 1, maxQueue });
    pools.push(p);
    return p;
  };
  afterEach(async () => {
    await Promise.all(pools.splice(0).map((p) => p.close()));
  });

  test("gives the same Extraction as extracting in this thread", async () => {
    const extractor = poolExtractor(newPool(), { deadlineMs: 60_000 });
    expect(await extractor.html(article, { url })).toEqual(extractHtml(article, { url }));
    const text = await extractor.text("Title line\n\nA paragraph of notes.", { url: "https://limits.example.test/notes.txt" });
    expect(text.markdown).toBe("Title line\n\nA paragraph of notes.");
  });

  test("ExtractErrors thrown in the worker arrive as ExtractErrors with their reason and message", async () => {
    const extractor = poolExtractor(newPool(), { deadlineMs: 60_000 });
    expect(await reason(extractor.html(linkBlocks(10), { url, maxElements: 24 }))).toBe("page_too_complex");
    expect(await reason(extractor.html("%PDF-1.7", { url, contentType: "application/pdf" }))).toBe("unsupported_content_type");
    const empty = await extractor.html("<html><body></body></html>", { url }).catch((e: unknown) => e);
    expect(empty).toMatchObject({ name: "ExtractError", reason: "empty", message: "the page has no text" });
  });

  test("a page still running at the deadline is ExtractError extract_timeout; the next page extracts", async () => {
    const pool = newPool();
    // 20,005 elements take seconds; the deadline is a millisecond.
    const hurried = poolExtractor(pool, { deadlineMs: 1 });
    const err = await hurried.html(linkBlocks(10_000), { url }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ExtractError);
    expect(err).toMatchObject({ reason: "extract_timeout", message: "extract_timeout: the page took longer than 1 ms to extract" });
    const patient = poolExtractor(pool, { deadlineMs: 60_000 });
    expect((await patient.html(article, { url })).title).toBe("A short article");
  });

  test("the scoring stages stay linear: thousands of identical blocks and a huge stated articleBody extract within the default deadline", async () => {
    // Each stage that compares blocks (repeated text, the stated articleBody's anchors) once did so pairwise.
    const blocks = "<div><p>the same short line</p></div>".repeat(15_000);
    const ld = JSON.stringify({ "@type": "NewsArticle", headline: "Same", articleBody: "word ".repeat(200_000) });
    const page = `<html><head><title>Same</title><script type="application/ld+json">${ld}</script></head><body><h1>Same</h1>${blocks}</body></html>`;
    const extractor = poolExtractor(newPool(), { deadlineMs: 15_000 });
    const ex = await extractor.html(page, { url });
    expect(ex.markdown).toContain("the same short line");
  });

  test("a page refused by a full queue is extract_busy; pages cut off by closing the pool are extract_failed", async () => {
    const pool = newPool(1);
    const extractor = poolExtractor(pool, { deadlineMs: 60_000 });
    const running = reason(extractor.html(linkBlocks(10_000), { url }));
    const waiting = reason(extractor.html(article, { url }));
    expect(await reason(extractor.html(article, { url }))).toBe("extract_busy");
    await pool.close();
    expect(await running).toBe("extract_failed");
    expect(await waiting).toBe("extract_failed");
  });
});
