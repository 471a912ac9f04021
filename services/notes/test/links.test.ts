// Real: every service in-process (PGlite + the in-process bus, or PostgreSQL + NATS), driven over HTTP. Item links
// are checked with the items service over the bus, as the caller.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { addClientKey, articleHtml, bobKey, startTrove, type TestTrove } from "@trove/testing";

let trove: TestTrove;
beforeAll(async () => {
  trove = await startTrove({ TROVE_RATE_LIMIT: "100000" });
});
afterAll(() => trove.stop());

type Init = Parameters<TestTrove["api"]>[1];
const call = async (path: string, init?: Init) => {
  const res = await trove.api(path, init);
  return { status: res.status, body: await res.json() };
};
const ok = async (path: string, init?: Init) => {
  const { status, body } = await call(path, init);
  if (status !== 200) throw new Error(`${init?.method ?? "GET"} ${path} answered ${status}: ${JSON.stringify(body)}`);
  return body;
};

let n = 0;
const saveItem = async (key?: string) =>
  (await ok("/api/ingest", { method: "POST", key, json: { url: `https://links.example.test/${++n}`, html: articleHtml } })).id as string;
const newNote = async (title = "Reading notes", key?: string) => (await ok("/api/notes", { method: "POST", key, json: { title, bodyMarkdown: "# Notes\n" } })).note.id as string;
const highlight = async (itemId: string, text = "Parsing", key?: string) =>
  (await ok(`/api/items/${itemId}/highlights`, { method: "POST", key, json: { text } })).highlight.id as string;
const link = (noteId: string, json: Record<string, unknown>, key?: string) => call(`/api/notes/${noteId}/item-links`, { method: "POST", json, key });

describe("attaching items", () => {
  test("an item is attached as a source by default, shows on the note, and makes no revision", async () => {
    const itemId = await saveItem();
    const noteId = await newNote();
    const { status, body } = await link(noteId, { itemId, annotation: "the parser section" });
    expect(status).toBe(200);
    expect(body.existing).toBe(false);
    expect(body.link).toMatchObject({ itemId, highlightId: null, relation: "source", annotation: "the parser section" });
    expect(body.link.id).toBeString();
    const { note } = await ok(`/api/notes/${noteId}`);
    expect(note.itemLinks).toEqual([body.link]);
    expect(note.currentRevision).toBe(1);
    expect((await ok(`/api/notes/${noteId}/history`)).count).toBe(1);
  });

  test("the same attachment again returns the existing link; another relation or a highlight is another link", async () => {
    const itemId = await saveItem();
    const h = await highlight(itemId);
    const noteId = await newNote();
    const first = (await link(noteId, { itemId, relation: "evidence" })).body;
    const again = await link(`note_${noteId}`, { itemId, relation: "evidence", annotation: "said twice" });
    expect(again.status).toBe(200);
    expect(again.body).toEqual({ link: first.link, existing: true });
    const other = (await link(noteId, { itemId, relation: "example" })).body;
    const withHighlight = (await link(noteId, { itemId, relation: "evidence", highlightId: h })).body;
    expect(other.existing).toBe(false);
    expect(withHighlight).toMatchObject({ existing: false, link: { highlightId: h, relation: "evidence" } });
    const ids = new Set([first.link.id, other.link.id, withHighlight.link.id]);
    expect(ids.size).toBe(3);
    expect((await ok(`/api/notes/${noteId}`)).note.itemLinks.map((l: { id: string }) => l.id).sort()).toEqual([...ids].sort());
  });

  test("the same attachment sent 12 times at once makes one link", async () => {
    const itemId = await saveItem();
    const noteId = await newNote();
    const replies = await Promise.all(Array.from({ length: 12 }, () => link(noteId, { itemId, relation: "inspiration" })));
    expect(replies.map((r) => r.status)).toEqual(Array(12).fill(200));
    expect(new Set(replies.map((r) => r.body.link.id)).size).toBe(1);
    expect(replies.filter((r) => r.body.existing === false).length).toBe(1);
    expect((await ok(`/api/notes/${noteId}`)).note.itemLinks).toHaveLength(1);
  });

  test("another account's item, a missing item and a highlight of another item answer 404", async () => {
    const noteId = await newNote();
    const bobsItem = await saveItem(bobKey);
    const bobsHighlight = await highlight(bobsItem, "Parsing", bobKey);
    const mine = await saveItem();
    const otherItem = await saveItem();
    const otherHighlight = await highlight(otherItem);
    for (const json of [
      { itemId: bobsItem },
      { itemId: "no-such-item" },
      { itemId: mine, highlightId: otherHighlight },
      { itemId: mine, highlightId: bobsHighlight },
      { itemId: mine, highlightId: "no-such-highlight" },
    ]) {
      const { status, body } = await link(noteId, json);
      expect(status).toBe(404);
      expect(body.error).toBe("not_found");
    }
    expect((await ok(`/api/notes/${noteId}`)).note.itemLinks).toEqual([]);
  });

  test("a note of another account, or no note at all, answers 404", async () => {
    const itemId = await saveItem(bobKey);
    const alicesNote = await newNote();
    expect((await link(alicesNote, { itemId }, bobKey)).status).toBe(404);
    expect((await link("missing-note", { itemId: await saveItem() })).status).toBe(404);
  });

  test("an unknown relation or a bad id answers 400", async () => {
    const noteId = await newNote();
    const itemId = await saveItem();
    for (const json of [{ itemId, relation: "citation" }, { itemId: "" }, { itemId: "../etc" }, {}, { itemId, highlightId: "a b" }]) {
      const { status, body } = await link(noteId, json);
      expect(status).toBe(400);
      expect(body.error).toBe("validation_failed");
    }
  });

  test("an archived item can still be attached; a key scoped to a tag cannot write notes (403)", async () => {
    const itemId = await saveItem();
    await ok("/api/items/archive", { method: "POST", json: { ids: [itemId] } });
    const noteId = await newNote();
    expect((await link(noteId, { itemId })).status).toBe(200);

    await ok(`/api/items/${itemId}`, { method: "POST", json: { tags: ["scoped"] } });
    const scoped = await addClientKey(trove, { scope: { tagSlugs: ["scoped"] } });
    const { status, body } = await link(noteId, { itemId, relation: "example" }, scoped);
    expect(status).toBe(403);
    expect(body.error).toBe("forbidden");
  });
  test("a note holds at most 1000 links: the next one answers 409, an existing one is still found", async () => {
    const noteId = await newNote("Full");
    const itemId = await saveItem();
    const first = (await link(noteId, { itemId })).body.link;
    // 999 more, written straight to the table (a large fixture; each would otherwise be one request).
    const account = (await trove.db.selectFrom("notes.notes").select("account_id").where("id", "=", noteId).executeTakeFirstOrThrow()).account_id;
    const rows = Array.from({ length: 999 }, (_, i) => ({
      id: `fixture-${noteId}-${i}`,
      account_id: account,
      note_id: noteId,
      item_id: `fixture-item-${i}`,
      relation: "source",
      annotation: "",
      created_at: 1,
    }));
    await trove.db.insertInto("notes.item_links").values(rows).execute();
    const { status, body } = await link(noteId, { itemId, relation: "example" });
    expect(status).toBe(409);
    expect(body).toMatchObject({ error: "invalid_state", limit: 1000 });
    expect((await link(noteId, { itemId })).body).toEqual({ link: first, existing: true });
  });
});

describe("removing links", () => {
  test("a link is removed once; another account's or another note's link answers 404", async () => {
    const itemId = await saveItem();
    const noteId = await newNote();
    const otherNote = await newNote("Other");
    const { link: l } = (await link(noteId, { itemId })).body;
    expect((await call(`/api/notes/${otherNote}/item-links/${l.id}`, { method: "DELETE" })).status).toBe(404);
    expect((await call(`/api/notes/${noteId}/item-links/${l.id}`, { method: "DELETE", key: bobKey })).status).toBe(404);
    expect(await ok(`/api/notes/note_${noteId}/item-links/${l.id}`, { method: "DELETE" })).toEqual({ ok: true, id: l.id });
    const again = await call(`/api/notes/${noteId}/item-links/${l.id}`, { method: "DELETE" });
    expect(again.status).toBe(404);
    expect(again.body.error).toBe("not_found");
    expect((await ok(`/api/notes/${noteId}`)).note).toMatchObject({ itemLinks: [], currentRevision: 1 });
    // Attaching it again makes a new link.
    const back = (await link(noteId, { itemId })).body;
    expect(back.existing).toBe(false);
    expect(back.link.id).not.toBe(l.id);
  });
});
