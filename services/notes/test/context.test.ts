// Real: every service in-process (PGlite + the in-process bus, or PostgreSQL + NATS), driven over HTTP. The note
// context asks the items service over the bus for bounded summaries of the linked items; the last test runs a
// Trove whose items service is stopped after the links are made.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { migrateModules, type RunningService } from "@trove/host";
import { itemsService } from "@trove/items";
import { articleHtml, bobKey, startTrove, type TestTrove } from "@trove/testing";

let trove: TestTrove;
beforeAll(async () => {
  trove = await startTrove({ TROVE_RATE_LIMIT: "100000" });
});
afterAll(() => trove.stop());

type Init = Parameters<TestTrove["api"]>[1];
const api = (t: TestTrove) => {
  const call = async (path: string, init?: Init) => {
    const res = await t.api(path, init);
    return { status: res.status, body: await res.json() };
  };
  const ok = async (path: string, init?: Init) => {
    const { status, body } = await call(path, init);
    if (status !== 200) throw new Error(`${init?.method ?? "GET"} ${path} answered ${status}: ${JSON.stringify(body)}`);
    return body;
  };
  return { call, ok };
};
const call = (path: string, init?: Init) => api(trove).call(path, init);
const ok = (path: string, init?: Init) => api(trove).ok(path, init);

const unicodeHtml = `<!doctype html><html lang="fr"><head><meta charset="utf-8"><title>Crème brûlée</title></head><body><article>
<h1>Crème brûlée</h1>${Array.from({ length: 30 }, (_, i) => `<p>Paragraphe ${i}: crème brûlée 🍮 à la façon de Paris, très appréciée — ${"é".repeat(40)}.</p>`).join("\n")}
</article></body></html>`;

let n = 0;
const saveItem = async (html = articleHtml, key?: string, t?: TestTrove) =>
  (await (t ? api(t).ok : ok)("/api/ingest", { method: "POST", key, json: { url: `https://context.example.test/${++n}`, html } })).id as string;
const newNote = async (body = "# Plan\n\nIntro\n\n## Sources\n\nText\n", key?: string) =>
  (await ok("/api/notes", { method: "POST", key, json: { title: "Context note", bodyMarkdown: body } })).note.id as string;
const highlight = async (itemId: string, text: string) => (await ok(`/api/items/${itemId}/highlights`, { method: "POST", json: { text } })).highlight.id as string;
const link = async (noteId: string, json: Record<string, unknown>) => (await ok(`/api/notes/${noteId}/item-links`, { method: "POST", json })).link;

describe("note context", () => {
  test("manifest, outline and sources with item summaries and highlights; no bodies or excerpts unless asked", async () => {
    const article = await saveItem();
    const hs: string[] = [];
    for (let i = 1; i <= 7; i++) hs.push(await highlight(article, `highlight ${i}`));
    const other = await saveItem(unicodeHtml);
    const pinned = await highlight(other, "crème brûlée");
    const noteId = await newNote();
    const plain = await link(noteId, { itemId: article, annotation: "why it matters" });
    const withHighlight = await link(noteId, { itemId: other, highlightId: pinned, relation: "evidence" });

    const ctx = await ok(`/api/notes/note_${noteId}/context`);
    expect(ctx.note).toMatchObject({ id: noteId, title: "Context note", currentRevision: 1, archived: false });
    expect(ctx.note.bodyMarkdown).toBeUndefined();
    expect(ctx.outline).toEqual([
      { level: 1, text: "Plan", line: 1 },
      { level: 2, text: "Sources", line: 5 },
    ]);
    expect(ctx.sourceCount).toBe(2);
    expect(ctx.history).toBeUndefined();
    const [a, b] = ctx.sources;
    expect(a).toMatchObject({ linkId: plain.id, itemId: article, highlightId: null, relation: "source", annotation: "why it matters", available: true });
    expect(a.reason).toBeUndefined();
    expect(a.item).toMatchObject({ id: article, title: "Parsing Things Well", url: `https://context.example.test/${n - 1}`, status: "stashed", tags: [] });
    expect(a.item.excerpt).toBeUndefined();
    // The item's first highlights, at most 5, in creation order.
    expect(a.highlights.map((h: { id: string }) => h.id)).toEqual(hs.slice(0, 5));
    expect(a.highlights[0]).toEqual({ id: hs[0], text: "highlight 1", note: "" });
    // A link to a highlight shows that highlight only.
    expect(b).toMatchObject({ linkId: withHighlight.id, itemId: other, highlightId: pinned, relation: "evidence", available: true });
    expect(b.highlights).toEqual([{ id: pinned, text: "crème brûlée", note: "" }]);
  });

  test("content=true adds each item's Markdown start, cut at contentBytes on a character boundary", async () => {
    const itemId = await saveItem(unicodeHtml);
    const markdown = await (await trove.api(`/api/items/${itemId}/content`)).text();
    expect(Buffer.byteLength(markdown)).toBeGreaterThan(2000);
    const noteId = await newNote();
    await link(noteId, { itemId });
    for (const bytes of [1, 2, 3, 4, 5, 101, 333]) {
      const { sources } = await ok(`/api/notes/${noteId}/context?content=true&contentBytes=${bytes}`);
      const { excerpt, contentTruncated } = sources[0].item;
      expect(Buffer.byteLength(excerpt)).toBeLessThanOrEqual(bytes);
      expect(Buffer.byteLength(excerpt)).toBeGreaterThan(bytes - 4);
      expect(markdown.startsWith(excerpt)).toBe(true);
      expect(excerpt).not.toContain("\uFFFD");
      expect(contentTruncated).toBe(true);
    }
    // The default: 2000 bytes.
    const { sources } = await ok(`/api/notes/${noteId}/context?content=true`);
    expect(Buffer.byteLength(sources[0].item.excerpt)).toBeLessThanOrEqual(2000);
    expect(Buffer.byteLength(sources[0].item.excerpt)).toBeGreaterThan(1996);
    // Enough bytes for all of it: the whole Markdown, not truncated.
    const whole = (await ok(`/api/notes/${noteId}/context?content=true&contentBytes=32768`)).sources[0].item;
    expect(whole).toMatchObject({ excerpt: markdown, contentTruncated: false });
  });

  test("highlight text is cut at 1000 bytes", async () => {
    const itemId = await saveItem();
    const long = "ü".repeat(3000);
    const h = await highlight(itemId, long);
    const noteId = await newNote();
    await link(noteId, { itemId, highlightId: h });
    const [source] = (await ok(`/api/notes/${noteId}/context`)).sources;
    expect(source.highlights[0].text).toBe("ü".repeat(500));
  });

  test("an archived, a deleted item and a deleted highlight are marked unavailable; the response stays 200", async () => {
    const archived = await saveItem();
    const deleted = await saveItem();
    const kept = await saveItem();
    const gone = await highlight(kept, "soon gone");
    const noteId = await newNote();
    await link(noteId, { itemId: archived });
    await link(noteId, { itemId: deleted });
    await link(noteId, { itemId: kept, highlightId: gone });
    await link(noteId, { itemId: kept, relation: "example" });
    await ok("/api/items/archive", { method: "POST", json: { ids: [archived] } });
    await ok("/api/items/delete", { method: "POST", json: { ids: [deleted] } });
    await ok(`/api/highlights/${gone}`, { method: "DELETE" });

    const { status, body } = await call(`/api/notes/${noteId}/context?content=true`);
    expect(status).toBe(200);
    const [a, d, h, fine] = body.sources;
    expect(a).toMatchObject({ itemId: archived, available: false, reason: "archived", item: { id: archived, status: "archived" } });
    expect(d).toMatchObject({ itemId: deleted, available: false, reason: "missing", highlights: [] });
    expect(d.item).toBeUndefined();
    expect(h).toMatchObject({ itemId: kept, highlightId: gone, available: false, reason: "highlight_missing", highlights: [] });
    expect(fine).toMatchObject({ itemId: kept, available: true, highlights: [] });
    expect(fine.item.excerpt).toBeString();
  });

  test("sourceLimit bounds the sources; history=true adds recent revision summaries, newest first", async () => {
    const noteId = await newNote("# One\n");
    for (let i = 0; i < 3; i++) await link(noteId, { itemId: await saveItem() });
    for (let i = 0; i < 4; i++) await ok(`/api/notes/${noteId}/append`, { method: "POST", json: { bodyMarkdown: `## Part ${i}` } });
    const ctx = await ok(`/api/notes/${noteId}/context?sourceLimit=2&history=true&historyLimit=3`);
    expect(ctx.sources).toHaveLength(2);
    expect(ctx.sourceCount).toBe(3);
    expect(ctx.history.map((r: { revisionNumber: number }) => r.revisionNumber)).toEqual([5, 4, 3]);
    expect(ctx.history[0]).toMatchObject({ operation: "append", revisionNumber: 5 });
    expect(ctx.history[0].bodyMarkdown).toBeUndefined();
    expect(ctx.outline.map((h: { text: string }) => h.text)).toEqual(["One", "Part 0", "Part 1", "Part 2", "Part 3"]);
    expect((await ok(`/api/notes/${noteId}/context?history=true`)).history).toHaveLength(5);
  });

  test("a note without links has no sources; bad bounds answer 400; another account's note 404", async () => {
    const noteId = await newNote("");
    expect(await ok(`/api/notes/${noteId}/context`)).toMatchObject({ outline: [], sources: [], sourceCount: 0 });
    for (const q of ["sourceLimit=0", "sourceLimit=51", "historyLimit=101", "contentBytes=0", "contentBytes=40000", "sourceLimit=x", "history=maybe"]) {
      const { status, body } = await call(`/api/notes/${noteId}/context?${q}`);
      expect(status).toBe(400);
      expect(body.error).toBe("validation_failed");
    }
    expect((await call(`/api/notes/${noteId}/context`, { key: bobKey })).status).toBe(404);
  });
});

describe("when the items service does not answer", () => {
  test("every source is marked unavailable and the context still answers", async () => {
    const t = await startTrove({ TROVE_RATE_LIMIT: "100000" }, { without: ["items"] });
    let items: RunningService | undefined;
    try {
      await migrateModules([itemsService], t.runtime.database);
      items = await itemsService.start(t.runtime);
      const { ok: tok, call: tcall } = api(t);
      const itemId = await saveItem(articleHtml, undefined, t);
      const noteId = (await tok("/api/notes", { method: "POST", json: { title: "Offline", bodyMarkdown: "# Still here\n" } })).note.id;
      await tok(`/api/notes/${noteId}/item-links`, { method: "POST", json: { itemId } });
      await items.stop();
      items = undefined;

      const { status, body } = await tcall(`/api/notes/${noteId}/context?content=true`);
      expect(status).toBe(200);
      expect(body.outline).toEqual([{ level: 1, text: "Still here", line: 1 }]);
      expect(body.sources).toEqual([
        expect.objectContaining({ itemId, available: false, reason: "unavailable", highlights: [] }),
      ]);
      expect(body.sources[0].item).toBeUndefined();
      expect(t.logs.some((l) => l.level === 40 && String(l.msg).includes("items service did not answer"))).toBe(true);
    } finally {
      await items?.stop();
      await t.stop();
    }
  });
});
