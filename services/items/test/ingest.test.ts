// Real: every service in-process on PGlite and the in-process bus; pages served by a local HTTP server on 127.0.0.1.
// Saves that finish before the answer; the background path has its own file (ingest-background.test.ts).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { contentCapBytes } from "@trove/extract";
import { bobKey, startPageServer, startTrove, type PageServer, type TestTrove } from "@trove/testing";

/**
 * Every save here answers with its capture, whatever the machine's speed: a capture is bounded by its own
 * deadlines (the fetch 20 s in all, extraction 30 s once a worker has it), so it ends, with content or with its
 * error, well within the 60 s wait, and the gateway's deadline is longer still.
 */
const foreground = { TROVE_INGEST_WAIT_MS: "60000", TROVE_EXTRACT_TIMEOUT_MS: "30000", TROVE_REQUEST_TIMEOUT_MS: "90000" };

let trove: TestTrove;
let pages: PageServer;
beforeAll(async () => {
  pages = startPageServer();
  trove = await startTrove(foreground);
  // The first extraction also starts a worker thread: done here, so that no test's save is the one to pay for it.
  const warm = await ingest({ url: "https://warm-up.example.test/", html: "<article><p>Warming up the extraction workers.</p></article>" });
  expect(warm.body).toMatchObject({ ok: true, extracted: true });
});
afterAll(async () => {
  await trove.stop();
  pages.stop();
});

const ingest = async (body: Record<string, unknown>, key?: string) => {
  const res = await trove.api("/api/ingest", { method: "POST", json: body, key });
  return { status: res.status, body: await res.json() };
};
const item = async (id: string) => (await trove.api(`/api/items/${id}`)).json();

describe("saving and extracting a page", () => {
  test("an article is fetched, extracted and stored with its metadata", async () => {
    const { status, body } = await ingest({ url: `${pages.url}/article?utm_source=newsletter` });
    expect(status).toBe(200);
    expect(body).toMatchObject({ ok: true, url: `${pages.url}/article`, extracted: true });
    expect(body.sync).toMatchObject({ received: 1, accepted: 1, added: 1, limitReached: false });
    const it = await item(body.id);
    expect(it.title).toBe("Parsing Things Well");
    expect(it.favicon).toBe(`${pages.url}/static/icon.png`);
    expect(it).toMatchObject({ contentSource: "fetch", contentTruncated: false, contentExtractError: null, contentAvailable: true });
    expect(it.contentSize).toBeGreaterThan(300);
    expect(it.contentKey).toMatch(/^[0-9a-f]{32}$/);
    expect(it.contentExtractedAt).toBeGreaterThan(0);
    const md: string = it.contentMarkdown;
    expect(md).toContain("```typescript");
    expect(md).toContain("```python");
    expect(md).toMatch(/\| Approach \| Speed \| Clarity \|/);
    expect(md).toContain(`(${pages.url}/guide/start)`);
    expect(md).not.toContain("BUY CHEAP WIDGETS");
    expect(md).not.toContain("Share on Social");
    expect(md).not.toContain("All rights reserved");
    expect(it.content.schemaVersion).toBe(2);
    expect(it.content.meta.frontmatter).toMatchObject({ title: "Parsing Things Well", source: `${pages.url}/article` });
    expect(it.content.items.main).toMatchObject({ format: "markdown", markdown: md });
  });

  test("saving the same page again returns the same item without fetching again", async () => {
    // A path no other test saves, so the counts below are this test's alone.
    const first = await ingest({ url: `${pages.url}/article-copy?utm_source=a` });
    expect(first.body).toMatchObject({ extracted: true, sync: { added: 1 } });
    expect(pages.hits.get("/article-copy")).toBe(1);
    const again = await ingest({ url: `${pages.url}/article-copy#section` });
    expect(again.body.id).toBe(first.body.id);
    expect(again.body).toMatchObject({ extracted: true, sync: { added: 0 } });
    expect(pages.hits.get("/article-copy")).toBe(1);
    expect((await item(first.body.id)).timesAdded).toBe(2);
  });

  test("browser-side capture: the HTML is used and nothing is fetched", async () => {
    const html = "<html><head><title>Paywalled</title></head><body><article><h1>Members only</h1><p>" + "Secret words for members. ".repeat(20) + "</p></article></body></html>";
    const { body } = await ingest({ url: `${pages.url}/paywalled`, html });
    expect(body.extracted).toBe(true);
    expect(pages.hits.get("/paywalled")).toBeUndefined();
    const it = await item(body.id);
    expect(it.contentSource).toBe("browser");
    expect(it.contentMarkdown).toContain("Secret words for members");
  });

  test("a 404 page is still saved, with the error", async () => {
    const { status, body } = await ingest({ url: `${pages.url}/missing` });
    expect(status).toBe(200);
    expect(body).toMatchObject({ ok: true, extracted: false, extractError: "HTTP 404" });
    const it = await item(body.id);
    expect(it.contentExtractError).toBe("HTTP 404");
    expect(it.contentAvailable).toBe(false);
  });

  test("redirects are followed up to five hops; more is an error", async () => {
    const ok = await ingest({ url: `${pages.url}/redirect/4` });
    expect(ok.body.extracted).toBe(true);
    expect((await item(ok.body.id)).title).toBe("Parsing Things Well");
    const lastHop = pages.hits.get("/redirect/0");
    const tooMany = await ingest({ url: `${pages.url}/redirect/6` });
    expect(tooMany.body.extracted).toBe(false);
    expect(tooMany.body.extractError).toStartWith("too_many_redirects:");
    expect(pages.hits.get("/redirect/1")).toBe(2);
    expect(pages.hits.get("/redirect/0")).toBe(lastHop); // the hop past the fifth redirect is never requested
  });

  test("a non-HTML file is saved without content and says why", async () => {
    const { body } = await ingest({ url: `${pages.url}/file.pdf` });
    expect(body.extracted).toBe(false);
    expect(body.extractError).toContain("application/pdf");
  });

  test("a plain-text page becomes Markdown", async () => {
    const { body } = await ingest({ url: `${pages.url}/notes.txt` });
    expect(body.extracted).toBe(true);
    expect((await item(body.id)).contentMarkdown).toContain("Second paragraph of the notes file.");
  });

  test("a windows-1252 page is decoded", async () => {
    const { body } = await ingest({ url: `${pages.url}/latin1` });
    const it = await item(body.id);
    expect(it.title).toBe("Café crème");
    expect(it.contentMarkdown).toContain("très apprécié");
  });

  test("a huge page is cut cleanly and marked truncated", async () => {
    const { body } = await ingest({ url: `${pages.url}/huge` });
    expect(body).toMatchObject({ ok: true, extracted: true });
    const it = await item(body.id);
    expect(it.contentTruncated).toBe(true);
    // The page's Markdown would be about 6.8 MB; what is stored stops at the cap, and close to it.
    expect(it.contentSize).toBeLessThanOrEqual(contentCapBytes);
    expect(it.contentSize).toBeGreaterThan(contentCapBytes - 2_048);
    const res = await trove.api(`/api/items/${body.id}/content`);
    expect(res.headers.get("x-content-truncated")).toBe("true");
    const markdown = await res.text();
    expect(Buffer.byteLength(markdown)).toBe(it.contentSize);
    expect(markdown).toEndWith("adipiscing elit.");
  });
});

describe("the test harness resolves names itself", () => {
  test("a name other than localhost does not resolve, and the lookup never leaves the harness", async () => {
    const { status, body } = await ingest({ url: "https://blog.example.test/post" });
    expect(status).toBe(200);
    expect(body).toMatchObject({ ok: true, extracted: false, extractError: expect.stringMatching(/^dns: .*blog\.example\.test/) });
    expect(trove.lookups).toContain("blog.example.test");
    expect((await item(body.id)).contentAvailable).toBe(false);
  });

  test("localhost resolves to loopback through the same resolver", async () => {
    const port = new URL(pages.url).port;
    const before = pages.hits.get("/notes.txt") ?? 0;
    const { body } = await ingest({ url: `http://localhost:${port}/notes.txt` });
    expect(body).toMatchObject({ ok: true, extracted: true });
    expect(trove.lookups).toContain("localhost");
    expect(pages.hits.get("/notes.txt")).toBe(before + 1);
  });
});

describe("refusals", () => {
  test("non-http URLs answer 400 and save nothing", async () => {
    for (const url of ["javascript:alert(1)", "file:///etc/passwd", "data:text/html,hi"]) {
      const { status, body } = await ingest({ url });
      expect(status).toBe(400);
      expect(body.error).toBe("validation_failed");
    }
  });

  test("wrong types answer 400 validation_failed", async () => {
    expect((await ingest({ url: ["x"] })).status).toBe(400);
    expect((await ingest({ url: "https://a.test/", html: 5 })).status).toBe(400);
    expect((await ingest({ url: "https://a.test/", source: { a: 1 } })).status).toBe(400);
  });

  test("the plan limit answers 429 quota_reached; re-saving a saved URL is never refused", async () => {
    const saved: string[] = [];
    for (let i = 0; i < 3; i++) {
      const r = await ingest({ url: `${pages.url}/article?n=${i}`, html: "<p>quota test page with some words</p>" }, bobKey);
      expect(r.status).toBe(200);
      saved.push(r.body.id);
    }
    const over = await ingest({ url: `${pages.url}/article?n=99`, html: "<p>one too many</p>" }, bobKey);
    expect(over.status).toBe(429);
    expect(over.body).toMatchObject({ error: "quota_reached", plan: "free", limitScope: "billing_cycle", linkLimit: 3, linkCount: 3 });
    expect(over.body.sync).toMatchObject({ linkLimit: 3, limitReached: true });
    const again = await ingest({ url: `${pages.url}/article?n=1`, html: "<p>again</p>" }, bobKey);
    expect(again.status).toBe(200);
    expect(again.body.id).toBe(saved[1]);
    const me = await (await trove.api("/api/me", { key: bobKey })).json();
    expect(me).toMatchObject({ linkLimit: 3, linkCount: 3, linkCountPeriod: 3 });
  });
});

describe("the SSRF guard", () => {
  test("without TROVE_ALLOW_PRIVATE_NETWORK, loopback targets answer 400 url_not_allowed and nothing is saved or fetched", async () => {
    const guarded = await startTrove({ ...foreground, TROVE_ALLOW_PRIVATE_NETWORK: "0" });
    try {
      const port = new URL(pages.url).port;
      const before = pages.hits.get("/article") ?? 0;
      for (const host of ["127.0.0.1", "127.1", "2130706433", "[::1]", "[::ffff:127.0.0.1]", "localhost", "0.0.0.0"]) {
        const res = await guarded.api("/api/ingest", { method: "POST", json: { url: `http://${host}:${port}/article` } });
        expect(res.status).toBe(400);
        expect((await res.json()).error).toBe("url_not_allowed");
      }
      expect(pages.hits.get("/article") ?? 0).toBe(before);
      expect((await (await guarded.api("/api/items")).json()).count).toBe(0);
    } finally {
      await guarded.stop();
    }
  });
});

describe("the reader's image proxy", () => {
  const media = async (id: string, t = trove) => (await (await t.api(`/api/items/${id}/media?limit=100`)).json()).media as { id: string; url: string; kind: string }[];

  test("a captured image is fetched through Trove for its owner only; what is not an image is a 404", async () => {
    const { body } = await ingest({ url: `${pages.url}/article?images` });
    expect(body.extracted).toBe(true);
    const [diagram] = await media(body.id);
    // Recorded as https (libs/extract/media.ts); the page server speaks only http, which the proxy falls back to.
    expect(diagram).toMatchObject({ kind: "web", url: `${pages.url.replace("http:", "https:")}/images/diagram.png` });
    const before = pages.hits.get("/images/diagram.png") ?? 0;
    const res = await trove.api(`/api/items/${body.id}/media/${diagram!.id}`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("image/png");
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect([...new Uint8Array(await res.arrayBuffer())]).toEqual([0x89, 0x50, 0x4e, 0x47]);
    expect(pages.hits.get("/images/diagram.png")).toBe(before + 1);
    // Another account's item, and no key at all, fetch nothing.
    expect((await trove.api(`/api/items/${body.id}/media/${diagram!.id}`, { key: bobKey })).status).toBe(404);
    expect((await trove.api(`/api/items/${body.id}/media/${diagram!.id}`, { key: null })).status).toBe(401);
    expect(pages.hits.get("/images/diagram.png")).toBe(before + 1);

    // An <img> whose address answers with a page, or with 404, is not passed on.
    const html = `<html><head><title>Odd images</title></head><body><article><h1>Odd images</h1><p>${"Words enough to be an article. ".repeat(20)}</p><img src="${pages.url}/article" alt="a page"><img src="${pages.url}/missing" alt="gone"></article></body></html>`;
    const odd = await ingest({ url: `${pages.url}/odd-images`, html });
    const [page, gone] = await media(odd.body.id);
    for (const m of [page!, gone!]) {
      const r = await trove.api(`/api/items/${odd.body.id}/media/${m.id}`);
      expect(r.status).toBe(404);
      expect((await r.json()).error).toBe("not_found");
    }
  });

  test("without TROVE_ALLOW_PRIVATE_NETWORK an image on a loopback address is refused, not fetched", async () => {
    const guarded = await startTrove({ ...foreground, TROVE_ALLOW_PRIVATE_NETWORK: "0" });
    try {
      const before = pages.hits.get("/images/guarded.png") ?? 0;
      const html = `<html><head><title>Guarded</title></head><body><article><h1>Guarded</h1><p>${"Words enough to be an article. ".repeat(20)}</p><img src="${pages.url.replace("127.0.0.1", "127.1")}/images/guarded.png" alt="x"></article></body></html>`;
      const saved = await (await guarded.api("/api/ingest", { method: "POST", json: { url: "https://guarded.example.test/post", html } })).json();
      const [image] = await media(saved.id, guarded);
      const res = await guarded.api(`/api/items/${saved.id}/media/${image!.id}`);
      expect(res.status).toBe(400);
      expect((await res.json()).error).toBe("url_not_allowed");
      expect(pages.hits.get("/images/guarded.png") ?? 0).toBe(before);
    } finally {
      await guarded.stop();
    }
  });
});
