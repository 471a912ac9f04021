// Real: every service in-process on PGlite and the in-process bus, driven over HTTP.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { articleHtml, bobKey, startTrove, type TestTrove } from "@trove/testing";

let trove: TestTrove;
beforeAll(async () => {
  trove = await startTrove();
});
afterAll(() => trove.stop());

let n = 0;
const save = async (html = articleHtml) =>
  (await (await trove.api("/api/ingest", { method: "POST", json: { url: `https://lib.example.test/a/${n++}`, html } })).json()).id as string;
const json = async (path: string, init?: Parameters<TestTrove["api"]>[1]) => {
  const res = await trove.api(path, init);
  return { status: res.status, body: await res.json() };
};

describe("tags", () => {
  test("create, list with counts, rename keeping the slug, delete from items", async () => {
    const created = await json("/api/tags", { method: "POST", json: { name: "Deep Work", description: "focus" } });
    expect(created.body).toEqual({ tag: { name: "Deep Work", slug: "deep-work", description: "focus" }, existing: false });
    const again = await json("/api/tags", { method: "POST", json: { name: "deep work" } });
    expect(again.body).toMatchObject({ tag: { slug: "deep-work", name: "Deep Work" }, existing: true });
    const id = await save();
    await trove.api(`/api/items/${id}`, { method: "POST", json: { tags: ["deep-work", "Café"] } });
    const list = await json("/api/tags");
    expect(list.body.tags).toEqual(expect.arrayContaining([expect.objectContaining({ slug: "deep-work", itemCount: 1 }), expect.objectContaining({ name: "Café", slug: "cafe" })]));
    const renamed = await json("/api/tags/deep-work", { method: "PATCH", json: { name: "Focused Work" } });
    expect(renamed.body.tag).toMatchObject({ name: "Focused Work", slug: "deep-work" });
    expect((await json(`/api/items/${id}`)).body.tags).toContain("Focused Work");
    const deleted = await json("/api/tags/deep-work", { method: "DELETE" });
    expect(deleted.body).toEqual({ ok: true, slug: "deep-work", itemsUntagged: 1 });
    expect((await json(`/api/items/${id}`)).body.tagSlugs).toEqual(["cafe"]);
    expect((await json(`/api/items/${id}`)).status).toBe(200); // the item stays
    expect((await json("/api/tags/deep-work", { method: "DELETE" })).status).toBe(404);
  });

  test("tags only on archived items are hidden from the list", async () => {
    const archived = await save();
    const kept = await save();
    await trove.api(`/api/items/${archived}`, { method: "POST", json: { tags: ["archived-only", "on-both"], archived: true } });
    await trove.api(`/api/items/${kept}`, { method: "POST", json: { tags: ["on-both"] } });
    const slugs = (await json("/api/tags")).body.tags.map((t: any) => t.slug);
    expect(slugs).not.toContain("archived-only");
    expect(slugs).toContain("on-both");
    expect((await json("/api/tags")).body.tags.find((t: any) => t.slug === "on-both")).toMatchObject({ name: "on-both", itemCount: 1 });
    // Unarchived, the item's tag is listed again.
    await trove.api(`/api/items/${archived}`, { method: "POST", json: { archived: false } });
    expect((await json("/api/tags")).body.tags.map((t: any) => t.slug)).toContain("archived-only");
  });

  test("bad tag input answers 400 or 404", async () => {
    expect((await json("/api/tags", { method: "POST", json: { name: "" } })).status).toBe(400);
    expect((await json("/api/tags", { method: "POST", json: { name: "   " } })).status).toBe(400);
    expect((await json("/api/tags/Not%20A%20Slug", { method: "PATCH", json: { name: "x" } })).status).toBe(400);
    expect((await json("/api/tags/no-such-tag", { method: "PATCH", json: { name: "x" } })).status).toBe(404);
    expect((await json("/api/tags/no-such-tag", { method: "PATCH", json: { name: 3 } })).status).toBe(400);
  });

  test("accounts do not see each other's tags", async () => {
    await json("/api/tags", { method: "POST", json: { name: "alice-secret" } });
    await json("/api/tags", { method: "POST", json: { name: "bob-own" }, key: bobKey });
    const bobs = (await json("/api/tags", { key: bobKey })).body.tags.map((t: any) => t.slug);
    expect(bobs).toEqual(["bob-own"]);
    const alices = (await json("/api/tags")).body.tags.map((t: any) => t.slug);
    expect(alices).toContain("alice-secret");
    expect(alices).not.toContain("bob-own");
  });
});

describe("collections", () => {
  test("posting an existing name returns the existing collection", async () => {
    const a = await json("/api/collections", { method: "POST", json: { name: "To Read" } });
    const b = await json("/api/collections", { method: "POST", json: { name: "to read" } });
    expect(a.body.existing).toBe(false);
    expect(b.body).toEqual({ collection: a.body.collection, existing: true });
    expect(a.body.collection).toMatchObject({ name: "To Read", slug: "to-read" });
    const list = await json("/api/collections");
    expect(list.body.collections).toContainEqual({ ...a.body.collection, itemCount: 0 });
    expect((await json("/api/collections", { method: "POST", json: {} })).status).toBe(400);
  });
});

describe("highlights", () => {
  test("create finds the text's offsets; list pages; get, patch and delete", async () => {
    const id = await save();
    const text = "the quick brown parser jumps over the lazy lexer";
    const created = await json(`/api/items/${id}/highlights`, { method: "POST", json: { text, note: "nice" } });
    expect(created.status).toBe(200);
    const h = created.body.highlight;
    const md = (await json(`/api/items/${id}`)).body.contentMarkdown as string;
    expect(md.slice(h.startOffset, h.endOffset)).toBe(text);
    expect(h.prefix.length).toBeGreaterThan(0);
    for (let i = 0; i < 3; i++) await json(`/api/items/${id}/highlights`, { method: "POST", json: { text: "Parsers turn text into structure" } });
    const page1 = await json(`/api/items/${id}/highlights?limit=2`);
    expect(page1.body.highlights.length).toBe(2);
    expect(page1.body).toMatchObject({ hasMore: true, nextOffset: 2 });
    const page2 = await json(`/api/items/${id}/highlights?limit=2&offset=2`);
    expect(page2.body).toMatchObject({ hasMore: false, nextOffset: null });
    expect((await json(`/api/items/${id}`)).body.highlights.length).toBe(4);
    expect((await json(`/api/highlights/${h.id}`)).body.highlight).toEqual(h);
    const patched = await json(`/api/highlights/${h.id}`, { method: "PATCH", json: { note: "changed" } });
    expect(patched.body.highlight).toMatchObject({ note: "changed", startOffset: h.startOffset });
    expect((await json(`/api/highlights/${h.id}`, { method: "DELETE" })).body).toEqual({ ok: true, id: h.id });
    expect((await json(`/api/highlights/${h.id}`)).status).toBe(404);
  });

  test("when the content is extracted again, highlights are found again by their text", async () => {
    const url = "https://lib.example.test/reanchor";
    const first = await json("/api/ingest", { method: "POST", json: { url, html: articleHtml } });
    const text = "the quick brown parser jumps over the lazy lexer";
    const h = (await json(`/api/items/${first.body.id}/highlights`, { method: "POST", json: { text } })).body.highlight;
    const longer = articleHtml.replace("<h2>A first example</h2>", "<h2>A first example</h2><p>" + "A new paragraph inserted above. ".repeat(10) + "</p>");
    await json("/api/ingest", { method: "POST", json: { url, html: longer } });
    const moved = (await json(`/api/highlights/${h.id}`)).body.highlight;
    const md = (await json(`/api/items/${first.body.id}`)).body.contentMarkdown as string;
    expect(moved.startOffset).toBeGreaterThan(h.startOffset);
    expect(md.slice(moved.startOffset, moved.endOffset)).toBe(text);
  });

  test("bad highlight input answers 4xx", async () => {
    const id = await save();
    expect((await json(`/api/items/${id}/highlights`, { method: "POST", json: {} })).status).toBe(400);
    expect((await json(`/api/items/${id}/highlights`, { method: "POST", json: { text: "x", startOffset: -1 } })).status).toBe(400);
    expect((await json(`/api/items/${id}/highlights`, { method: "POST", json: { text: "x", startOffset: 9, endOffset: 2 } })).status).toBe(400);
    expect((await json(`/api/items/${id}/highlights?limit=101`)).status).toBe(400);
    expect((await json(`/api/items/${id}/highlights`, { key: bobKey })).status).toBe(404);
    expect((await json("/api/highlights/01900000-0000-7000-8000-000000000000")).status).toBe(404);
    const h = (await json(`/api/items/${id}/highlights`, { method: "POST", json: { text: "Parsers turn text" } })).body.highlight;
    for (const bad of [{ note: 5 }, { startOffset: "x" }, { text: "" }, { endOffset: -3 }]) {
      const r = await json(`/api/highlights/${h.id}`, { method: "PATCH", json: bad });
      expect(r.status).toBe(400);
      expect(r.body.error).toBe("validation_failed");
    }
    expect((await json(`/api/highlights/${h.id}`, { method: "PATCH", json: { note: "x" }, key: bobKey })).status).toBe(404);
    expect((await json(`/api/highlights/${h.id}`, { method: "DELETE", key: bobKey })).status).toBe(404);
    expect((await json(`/api/highlights/${h.id}`)).status).toBe(200);
  });
});

describe("content, reads and media", () => {
  test("content is served as Markdown with its size", async () => {
    const id = await save();
    const res = await trove.api(`/api/items/${id}/content`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/markdown");
    const text = await res.text();
    expect(res.headers.get("x-content-size")).toBe(String(Buffer.byteLength(text)));
    expect(res.headers.get("x-content-truncated")).toBe("false");
    expect(res.headers.get("service-api-version")).toBe("2026-08-24");
    expect(text).toContain("In conclusion, test your parser");
  });

  test("read views: overview, search, lines, full; limits answer 413 and 400", async () => {
    const id = await save();
    const overview = (await json(`/api/items/${id}/read`)).body;
    expect(overview.view).toBe("overview");
    expect(overview.headings.map((h: any) => h.text)).toEqual(expect.arrayContaining(["A first example", "Comparing approaches"]));
    const search = (await json(`/api/items/${id}/read?view=search&q=tokenize&contextLines=1`)).body;
    expect(search.windows.length).toBeGreaterThan(0);
    expect(search.windows[0].text.toLowerCase()).toContain("tokenize");
    const lines = (await json(`/api/items/${id}/read?view=lines&lines=1:3`)).body;
    expect(lines).toMatchObject({ startLine: 1, endLine: 3 });
    const full = (await json(`/api/items/${id}/read?view=full`)).body;
    expect(full.text).toContain("In conclusion");
    const big = await json(`/api/items/${id}/read?view=lines&lines=1:500`);
    expect(big.status).toBe(413);
    expect(big.body.error).toBe("range_too_large");
    expect((await json(`/api/items/${id}/read?view=search`)).status).toBe(400);
    expect((await json(`/api/items/${id}/read?view=lines&lines=abc`)).status).toBe(400);
    expect((await json(`/api/items/${id}/read?view=everything`)).status).toBe(400);
  });

  test("captured images are listed in order with absolute URLs and pages", async () => {
    const id = await save();
    const all = (await json(`/api/items/${id}/media`)).body;
    expect(all.media.map((m: any) => m.url)).toEqual(["https://lib.example.test/images/diagram.png", `https://lib.example.test/a/images/second.jpg`]);
    expect(all.media[0]).toMatchObject({ kind: "web", alt: "Parse tree diagram" });
    expect(JSON.stringify(all)).not.toMatch(/blob|key/i);
    const page = (await json(`/api/items/${id}/media?limit=1`)).body;
    expect(page).toMatchObject({ limit: 1, offset: 0, count: 2, nextOffset: 1 });
    expect((await json(`/api/items/${id}/media?limit=101`)).status).toBe(400);
  });

  test("an uploaded image is stored and served back only to its owner", async () => {
    const id = await save();
    const png = Buffer.from("89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8cfc0f01f0005000201a0e2a4a20000000049454e44ae426082", "hex");
    const up = await json(`/api/items/${id}/media`, { method: "POST", json: { contentType: "image/png", dataBase64: png.toString("base64"), alt: "pixel" } });
    expect(up.status).toBe(200);
    expect(up.body.media).toMatchObject({ kind: "upload", url: `/api/items/${id}/media/${up.body.media.id}`, contentType: "image/png", size: png.length });
    const res = await trove.api(up.body.media.url);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("image/png");
    expect(Buffer.from(await res.arrayBuffer()).equals(png)).toBe(true);
    expect((await trove.api(up.body.media.url, { key: bobKey })).status).toBe(404);
    expect((await trove.api(up.body.media.url, { key: null })).status).toBe(401);
    const listed = (await json(`/api/items/${id}/media?limit=100`)).body.media;
    expect(listed.at(-1).id).toBe(up.body.media.id);
    const wrong = await json(`/api/items/${id}/media`, { method: "POST", json: { contentType: "image/png", dataBase64: Buffer.from("not a png").toString("base64") } });
    expect(wrong.status).toBe(400);
    const badType = await json(`/api/items/${id}/media`, { method: "POST", json: { contentType: "text/html", dataBase64: "AAAA" } });
    expect(badType.status).toBe(400);
  });
});
