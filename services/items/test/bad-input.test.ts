// Real: every service in-process (PGlite + the in-process bus, or PostgreSQL + NATS), driven over HTTP.
// The reproductions of issue 6 section 3: each answered 500 before; each answers 400 naming the field now
// (or, for captured page text, saves the page cleaned), and nothing is written by a refused request.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { articleHtml, startTrove, type TestTrove } from "@trove/testing";

let trove: TestTrove;
beforeAll(async () => {
  trove = await startTrove();
});
afterAll(() => trove.stop());

let n = 0;
const save = async (html = articleHtml) =>
  (await (await trove.api("/api/ingest", { method: "POST", json: { url: `https://bad.example.test/a/${n++}`, html } })).json()).id as string;
const json = async (path: string, init?: Parameters<TestTrove["api"]>[1]) => {
  const res = await trove.api(path, init);
  return { status: res.status, body: await res.json() };
};

/** Expects 400 validation_failed whose `fields` names exactly `field`. */
const refused = async (path: string, init: Parameters<TestTrove["api"]>[1], field: string) => {
  const r = await json(path, init);
  expect({ path, field, status: r.status, error: r.body.error }).toEqual({ path, field, status: 400, error: "validation_failed" });
  expect(Object.keys(r.body.fields)).toEqual([field]);
  return r.body;
};

const NUL = "a\u0000b";
const LONE = "a\ud800b";

describe("a NUL character or a lone surrogate in an API string answers 400 naming the field", () => {
  test("item updates: title, notes, tags, collectionId, collectionIds; the item is unchanged", async () => {
    const id = await save();
    const before = (await json(`/api/items/${id}`)).body;
    for (const [body, field] of [
      [{ title: NUL }, "title"],
      [{ notes: NUL }, "notes"],
      [{ tags: ["ok", NUL] }, "tags.1"],
      [{ collectionId: NUL }, "collectionId"],
      [{ collectionIds: [NUL] }, "collectionIds.0"],
      [{ title: LONE }, "title"],
      [{ notes: "\udc00" }, "notes"],
      [{ tags: [LONE] }, "tags.0"],
    ] as const) {
      const err = await refused(`/api/items/${id}`, { method: "POST", json: body }, field);
      expect(err.fields[field]).toMatch(/NUL|surrogate/);
    }
    const after = (await json(`/api/items/${id}`)).body;
    expect(after).toEqual(before);
    expect((await json("/api/collections")).body.collections).toEqual([]);
  });

  test("tags and collections: names and descriptions", async () => {
    await refused("/api/tags", { method: "POST", json: { name: NUL } }, "name");
    await refused("/api/tags", { method: "POST", json: { name: "fine", description: NUL } }, "description");
    expect((await json("/api/tags", { method: "POST", json: { name: "kept" } })).status).toBe(200);
    await refused("/api/tags/kept", { method: "PATCH", json: { name: NUL } }, "name");
    await refused("/api/tags/kept", { method: "PATCH", json: { description: LONE } }, "description");
    await refused("/api/collections", { method: "POST", json: { name: NUL } }, "name");
    const tags = (await json("/api/tags")).body.tags;
    expect(tags).toEqual([{ name: "kept", slug: "kept", itemCount: 0 }]);
    expect((await json("/api/collections")).body.collections).toEqual([]);
  });

  test("highlights: text, prefix, suffix and note on create and update", async () => {
    const id = await save();
    for (const field of ["text", "prefix", "suffix", "note"]) {
      await refused(`/api/items/${id}/highlights`, { method: "POST", json: { text: "Parsers", [field]: NUL } }, field);
    }
    expect((await json(`/api/items/${id}/highlights`)).body.highlights).toEqual([]);
    const h = (await json(`/api/items/${id}/highlights`, { method: "POST", json: { text: "Parsers turn text" } })).body.highlight;
    for (const field of ["text", "prefix", "suffix", "note"]) {
      await refused(`/api/highlights/${h.id}`, { method: "PATCH", json: { [field]: LONE } }, field);
    }
    expect((await json(`/api/highlights/${h.id}`)).body.highlight).toEqual(h);
  });

  test("media alt and title, ingest source and url", async () => {
    const id = await save();
    const png = Buffer.from("89504e470d0a1a0a0000000d49484452000000010000000108060000001f15c4890000000d4944415478da63f8cfc0f01f0005000201a0e2a4a20000000049454e44ae426082", "hex");
    const upload = { contentType: "image/png", dataBase64: png.toString("base64") };
    await refused(`/api/items/${id}/media`, { method: "POST", json: { ...upload, alt: NUL } }, "alt");
    await refused(`/api/items/${id}/media`, { method: "POST", json: { ...upload, title: LONE } }, "title");
    expect((await json(`/api/items/${id}/media`)).body.media.filter((m: { kind: string }) => m.kind === "upload")).toEqual([]);
    const usage = (await json("/api/me")).body.linkCountLifetime;
    await refused("/api/ingest", { method: "POST", json: { url: "https://bad.example.test/source", source: NUL } }, "source");
    await refused("/api/ingest", { method: "POST", json: { url: "https://bad.example.test/\u0000" } }, "url");
    expect((await json("/api/me")).body.linkCountLifetime).toBe(usage);
  });

  test("query filters: source, collection, tags, feed q, read q", async () => {
    const id = await save();
    await refused("/api/items?source=a%00b", {}, "source");
    await refused("/api/items?collection=a%00b", {}, "collection");
    await refused("/api/items?tags=a%00b", {}, "tags");
    await refused("/api/feed?q=a%00b", {}, "q");
    await refused("/api/feed?collection=%00", {}, "collection");
    await refused(`/api/items/${id}/read?view=search&q=%00`, {}, "q");
  });
});

describe("captured page text is cleaned, not refused", () => {
  test("html holding NUL characters and lone surrogates is saved with them removed or replaced, counted once", async () => {
    const before = (await json("/api/me")).body.linkCountLifetime;
    // In the title and an image's alt (both kept in the jsonb content) and in the text.
    const html = articleHtml
      .replace('content="Parsing Things Well"', 'content="Parsing \ud800 Things\u0000 Well"')
      .replace('alt="Parse tree diagram"', 'alt="Parse \udc00 tree"')
      .replace("<h1>", "<h1>Lone \ud800 and NUL\u0000 ");
    const r = await json("/api/ingest", { method: "POST", json: { url: "https://bad.example.test/captured", html } });
    expect(r.status).toBe(200);
    expect(r.body).toMatchObject({ ok: true, extracted: true });
    const item = (await json(`/api/items/${r.body.id}`)).body;
    expect(item.contentAvailable).toBe(true);
    expect(item.contentMarkdown).toContain("Lone \ufffd and NUL ");
    expect(item.contentMarkdown).not.toContain("\u0000");
    expect(item.title).toBe("Parsing \ufffd Things Well");
    expect(item.content.media[0]).toMatchObject({ alt: "Parse \ufffd tree" });
    expect((await json("/api/me")).body.linkCountLifetime).toBe(before + 1);
  });
});

describe("integers the database cannot hold answer 400", () => {
  test("huge offsets on lists, the feed, highlights and media", async () => {
    const id = await save();
    for (const path of ["/api/items", "/api/feed", `/api/items/${id}/highlights`, `/api/items/${id}/media`]) {
      for (const offset of ["99999999999999999999", "2147483648", "1e309", "-1"]) {
        await refused(`${path}?offset=${offset}`, {}, "offset");
      }
      expect((await json(`${path}?offset=2147483647`)).status).toBe(200);
    }
  });

  test("highlight offsets past int4 on create and update", async () => {
    const id = await save();
    // Text that is not in the page keeps the caller's offsets: these reached the int4 column.
    await refused(`/api/items/${id}/highlights`, { method: "POST", json: { text: "not in the page", startOffset: 3_000_000_000 } }, "startOffset");
    await refused(`/api/items/${id}/highlights`, { method: "POST", json: { text: "not in the page", endOffset: 3_000_000_000 } }, "endOffset");
    expect((await json(`/api/items/${id}/highlights`)).body.highlights).toEqual([]);
    const h = (await json(`/api/items/${id}/highlights`, { method: "POST", json: { text: "not in the page either" } })).body.highlight;
    await refused(`/api/highlights/${h.id}`, { method: "PATCH", json: { startOffset: 3_000_000_000 } }, "startOffset");
    // The largest int4 is stored as given when the text is not found there.
    const kept = await json(`/api/items/${id}/highlights`, { method: "POST", json: { text: "not in the page", startOffset: 2147483640, endOffset: 2147483647 } });
    expect(kept.body.highlight).toMatchObject({ startOffset: 2147483640, endOffset: 2147483647 });
  });
});

describe("include accepts only its documented value", () => {
  test("lists and the single item: content is accepted, anything else answers 400", async () => {
    const id = await save();
    expect((await json("/api/items?include=content")).body.items[0].contentMarkdown).toBeString();
    expect((await json(`/api/items/${id}?include=content`)).body.contentMarkdown).toBeString();
    await refused("/api/items?include=contents", {}, "include");
    await refused("/api/items?include=content,highlights", {}, "include");
    await refused(`/api/items/${id}?include=everything`, {}, "include");
  });
});
