// Real: every service in-process (PGlite + the in-process bus, or PostgreSQL + NATS), driven over HTTP. The item
// read asks the notes service over the bus which notes link the item, for keys holding notes.read; the last test
// runs a Trove without a notes service.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { addClientKey, articleHtml, bobKey, startTrove, type TestTrove } from "@trove/testing";

let trove: TestTrove;
beforeAll(async () => {
  trove = await startTrove({ TROVE_RATE_LIMIT: "100000" });
});
afterAll(() => trove.stop());

type Init = Parameters<TestTrove["api"]>[1];
const ok = async (path: string, init?: Init, t = trove) => {
  const res = await t.api(path, init);
  const body = await res.json();
  if (res.status !== 200) throw new Error(`${init?.method ?? "GET"} ${path} answered ${res.status}: ${JSON.stringify(body)}`);
  return body;
};

let n = 0;
const saveItem = async (t = trove) => (await ok("/api/ingest", { method: "POST", json: { url: `https://connected.example.test/${++n}`, html: articleHtml } }, t)).id as string;
const newNote = async (title: string) => (await ok("/api/notes", { method: "POST", json: { title } })).note.id as string;
const link = async (noteId: string, json: Record<string, unknown>) => (await ok(`/api/notes/${noteId}/item-links`, { method: "POST", json })).link;

describe("connected notes on an item read", () => {
  test("a personal key sees the current notes linking the item; none is []; archived notes are left out", async () => {
    const itemId = await saveItem();
    expect((await ok(`/api/items/${itemId}`)).connectedNotes).toEqual([]);

    const plan = await newNote("Plan ✎");
    const log = await newNote("Log");
    const old = await newNote("Old");
    const a = await link(plan, { itemId, relation: "evidence" });
    const b = await link(log, { itemId });
    await link(old, { itemId });
    await ok(`/api/notes/${old}/archive`, { method: "POST", json: { expectedRevision: 1 } });
    // Another item's links do not show.
    await link(log, { itemId: await saveItem() });

    const item = await ok(`/api/items/${itemId}`);
    expect(item.id).toBe(itemId);
    expect([...item.connectedNotes].sort((x: { title: string }, y: { title: string }) => x.title.localeCompare(y.title))).toEqual([
      { id: log, title: "Log", relation: "source", linkId: b.id },
      { id: plan, title: "Plan ✎", relation: "evidence", linkId: a.id },
    ]);

    // Removing the link removes the note from the item.
    await ok(`/api/notes/${plan}/item-links/${a.id}`, { method: "DELETE" });
    expect((await ok(`/api/items/${itemId}`)).connectedNotes.map((c: { id: string }) => c.id)).toEqual([log]);
  });

  test("an unscoped client key (read-only too) holds notes.read and sees them; a tag-scoped key does not", async () => {
    const itemId = await saveItem();
    await ok(`/api/items/${itemId}`, { method: "POST", json: { tags: ["Shared reading"] } });
    const noteId = await newNote("Linked");
    const l = await link(noteId, { itemId });
    const expected = [{ id: noteId, title: "Linked", relation: "source", linkId: l.id }];

    for (const key of [await addClientKey(trove), await addClientKey(trove, { access: "read_only" })]) {
      expect((await ok(`/api/items/${itemId}`, { key })).connectedNotes).toEqual(expected);
    }

    const scoped = await addClientKey(trove, { scope: { tagSlugs: ["shared-reading"] } });
    const item = await ok(`/api/items/${itemId}`, { key: scoped });
    expect(item.id).toBe(itemId);
    expect(item).not.toHaveProperty("connectedNotes");
    // Nor can it read the notes themselves.
    const res = await trove.api(`/api/notes/${noteId}`, { key: scoped });
    expect(res.status).toBe(403);
    expect((await res.json()).error).toBe("forbidden");
  });

  test("another account's notes never show, and another account's item stays 404", async () => {
    const itemId = await saveItem();
    const noteId = await newNote("Alice only");
    await link(noteId, { itemId });
    expect((await trove.api(`/api/items/${itemId}`, { key: bobKey })).status).toBe(404);
    const bobsItem = (await ok("/api/ingest", { method: "POST", key: bobKey, json: { url: "https://connected.example.test/bob", html: articleHtml } })).id;
    expect((await ok(`/api/items/${bobsItem}`, { key: bobKey })).connectedNotes).toEqual([]);
  });
});

describe("without a notes service", () => {
  test("the item still answers, without connectedNotes, and a warning is logged", async () => {
    const t = await startTrove({ TROVE_RATE_LIMIT: "100000" }, { without: ["notes"] });
    try {
      const itemId = await saveItem(t);
      const res = await t.api(`/api/items/${itemId}`);
      expect(res.status).toBe(200);
      const item = await res.json();
      expect(item).toMatchObject({ id: itemId, title: "Parsing Things Well" });
      expect(item).not.toHaveProperty("connectedNotes");
      expect(t.logs.some((l) => l.level === 40 && String(l.msg).includes("notes service did not answer"))).toBe(true);
    } finally {
      await t.stop();
    }
  });
});
