// Real: every service in-process on PGlite and the in-process bus, driven over HTTP. The item events are read from
// the event log's table here to check what was recorded; change-stream.test.ts reads them over HTTP.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { addClientKey, bobKey, eventually, startTrove, type TestTrove } from "@trove/testing";

let trove: TestTrove;
beforeAll(async () => {
  trove = await startTrove();
});
afterAll(() => trove.stop());

let n = 0;
const save = async (extra: Record<string, unknown> = {}) => {
  const res = await trove.api("/api/ingest", {
    method: "POST",
    json: { url: `https://site${n}.example.test/post/${n++}`, html: "<article><h1>Post</h1><p>Some words to keep here.</p></article>", ...extra },
  });
  return (await res.json()).id as string;
};
const update = async (id: string, body: unknown, key?: string) => {
  const res = await trove.api(`/api/items/${id}`, { method: "POST", json: body, key });
  return { status: res.status, body: await res.json() };
};
const events = async (itemId: string) =>
  (await trove.db.selectFrom("eventlog.events").select("data").where("stream", "=", "items").where("subject", "like", "items.event.%").where("key", "=", itemId).orderBy("seq").execute()).map(
    (r) => r.data,
  ) as any[];

describe("updating an item", () => {
  test("title, notes, tags and collections change and the answer has the documented fields", async () => {
    const id = await save();
    const { status, body } = await update(id, { title: "My title", notes: "why I saved it", tags: ["Machine Learning", "rust"], collectionId: "Reading List" });
    expect(status).toBe(200);
    expect(body).toMatchObject({
      id,
      title: "My title",
      notes: "why I saved it",
      tags: ["Machine Learning", "rust"],
      tagSlugs: ["machine-learning", "rust"],
      collectionName: "Reading List",
      collectionSlug: "reading-list",
      processedAt: null,
    });
    const item = await (await trove.api(`/api/items/${id}`)).json();
    expect(item.tagSlugs).toEqual(["machine-learning", "rust"]);
    expect(item.collectionIds).toEqual(body.collectionIds);
  });

  test("each change writes its events with scopes before and after", async () => {
    const id = await save();
    await update(id, { tags: ["alpha", "beta"], title: "T" });
    await update(id, { tags: ["beta"], collectionIds: ["Inbox"] });
    await update(id, { collectionIds: [] });
    const types = (await events(id)).map((e) => e.type);
    expect(types).toEqual(["item.created", "item.updated", "item.tagged", "item.untagged", "item.collection_added", "item.collection_removed"]);
    const all = await events(id);
    const tagged = all.find((e) => e.type === "item.tagged");
    expect(tagged.payload.tagSlugsAdded).toEqual(["alpha", "beta"]);
    expect(tagged.beforeScope).toEqual({ status: "stashed", tagSlugs: [], collectionIds: [] });
    expect(tagged.afterScope.tagSlugs).toEqual(["alpha", "beta"]);
    const updated = all.find((e) => e.type === "item.updated");
    expect(updated.payload.changedFields).toEqual(["title"]);
    expect(updated.changedAt).toBeGreaterThan(1_700_000_000_000); // milliseconds
    const removed = all.find((e) => e.type === "item.collection_removed");
    expect(removed.beforeScope.collectionIds.length).toBe(1);
    expect(removed.afterScope.collectionIds).toEqual([]);
  });

  test("an update that changes nothing writes no event", async () => {
    const id = await save();
    await update(id, { tags: ["same"] });
    const count = (await events(id)).length;
    await update(id, { tags: ["SAME"] });
    expect((await events(id)).length).toBe(count);
  });

  test("archived, status and processed move the item, and back", async () => {
    const id = await save();
    expect((await update(id, { archived: true })).body.status).toBe("archived");
    expect((await (await trove.api("/api/items")).json()).items.map((i: any) => i.id)).not.toContain(id);
    expect((await (await trove.api("/api/items?status=archived")).json()).items.map((i: any) => i.id)).toContain(id);
    expect((await update(id, { archived: false })).body.status).toBe("stashed");
    expect((await update(id, { status: "flagged" })).body.status).toBe("flagged");
    const processed = await update(id, { processed: true });
    expect(processed.body.processedAt).toBeGreaterThan(0);
    expect((await update(id, { processed: false })).body.processedAt).toBeNull();
  });

  test("title null restores the page's own title; notes null clears them", async () => {
    const id = await save();
    await update(id, { title: "Mine", notes: "n" });
    const { body } = await update(id, { title: null, notes: null });
    expect(body.title).toBe("Post");
    expect(body.notes).toBe("");
  });

  test("bad updates answer 400; another account's item 404", async () => {
    const id = await save();
    for (const bad of [{ title: 5 }, { tags: "a,b" }, { archived: "yes" }, { status: "deleted" }, { collectionIds: [1] }]) {
      const r = await update(id, bad);
      expect(r.status).toBe(400);
      expect(r.body.error).toBe("validation_failed");
    }
    const other = await update(id, { title: "x" }, bobKey);
    expect(other.status).toBe(404);
    expect(other.body.error).toBe("not_found");
  });
});

describe("bulk actions", () => {
  test("archive, mark-processed and delete report their counts; unknown and foreign ids are not counted", async () => {
    const a = await save();
    const b = await save();
    const bobs = await (await trove.api("/api/ingest", { method: "POST", key: bobKey, json: { url: "https://bob.example.test/x", html: "<p>bob's</p>" } })).json();
    const unknown = "01900000-0000-7000-8000-000000000000";
    const archived = await (await trove.api("/api/items/archive", { method: "POST", json: { ids: [a, unknown, bobs.id] } })).json();
    expect(archived).toEqual({ requested: 3, archived: 1 });
    const processed = await (await trove.api("/api/items/mark-processed", { method: "POST", json: { ids: [a, b] } })).json();
    expect(processed).toEqual({ processed: 2 });
    const deleted = await (await trove.api("/api/items/delete", { method: "POST", json: { ids: [a, b, bobs.id] } })).json();
    expect(deleted).toEqual({ requested: 3, deleted: 2 });
    expect((await trove.api(`/api/items/${a}`)).status).toBe(404);
    expect((await trove.api(`/api/items/${bobs.id}`, { key: bobKey })).status).toBe(200);
    const deletedEvent = (await events(a)).at(-1);
    expect(deletedEvent.type).toBe("item.deleted");
    expect(deletedEvent.afterScope).toBeNull();
  });

  test("empty or malformed id lists answer 400", async () => {
    for (const body of [{ ids: [] }, { ids: "abc" }, {}, { ids: ["../x"] }]) {
      const res = await trove.api("/api/items/archive", { method: "POST", json: body });
      expect(res.status).toBe(400);
      expect((await res.json()).error).toBe("validation_failed");
    }
  });
});

describe("filters, feed and stats", () => {
  test("tags (all of them), collection by id, name or slug, and source filter the list", async () => {
    const a = await save();
    const b = await save();
    await update(a, { tags: ["filter-x", "filter-y"], collectionId: "Filter Coll" });
    await update(b, { tags: ["filter-x"] });
    const ids = async (q: string) => (await (await trove.api(`/api/items?${q}`)).json()).items.map((i: any) => i.id);
    expect((await ids("tags=filter-x")).sort()).toEqual([a, b].sort());
    expect(await ids("tags=filter-x,Filter-Y")).toEqual([a]);
    expect(await ids("collection=Filter%20Coll")).toEqual([a]);
    expect(await ids("collection=filter-coll")).toEqual([a]);
    const coll = (await (await trove.api(`/api/items/${a}`)).json()).collectionIds[0];
    expect(await ids(`collection=${coll}`)).toEqual([a]);
    expect(await ids("collection=no-such-collection")).toEqual([]);
    const host = (await (await trove.api(`/api/items/${a}`)).json()).url.split("/")[2];
    expect(await ids(`source=${host}`)).toEqual([a]);
  });

  test("the feed has unprocessed items with content; marking processed removes one", async () => {
    const id = await save();
    const feed = await (await trove.api("/api/feed?limit=1000")).json();
    const entry = feed.items.find((i: any) => i.id === id);
    expect(entry.contentMarkdown).toContain("Some words to keep here.");
    expect(entry.content.schemaVersion).toBe(2);
    await trove.api("/api/items/mark-processed", { method: "POST", json: { ids: [id] } });
    const after = await (await trove.api("/api/feed?limit=1000")).json();
    expect(after.items.map((i: any) => i.id)).not.toContain(id);
    const q = await (await trove.api("/api/feed?q=nothing-matches-this")).json();
    expect(q.items).toEqual([]);
    expect(q.count).toBe(0);
    for (const bad of ["limit=0", "limit=1001", "offset=-1", "q=", "since=tomorrow"]) {
      const res = await trove.api(`/api/feed?${bad}`);
      expect(res.status).toBe(400);
      expect((await res.json()).error).toBe("validation_failed");
    }
  });

  test("the feed's q finds an item by title, URL, notes or content, and only that item", async () => {
    const byTitle = await save();
    await update(byTitle, { title: "Zanzibar Quarterly Review" });
    const byUrl = await save({ url: "https://qfeed.example.test/xylophone-tuning" });
    const byNotes = await save();
    await update(byNotes, { notes: "remember the Okapi migration" });
    const byContent = await save({ html: "<article><h1>Post</h1><p>Words about quokka habitats and little else.</p></article>" });
    const found = async (q: string) => {
      const page = await (await trove.api(`/api/feed?limit=1000&q=${encodeURIComponent(q)}`)).json();
      expect(page.count).toBe(page.items.length);
      return page.items.map((i: any) => i.id);
    };
    // The feed's q is the search index's (kept from item events): wait for it to catch up.
    await eventually(async () => (await found("quokka habitats")).length === 1 && (await found("okapi migration")).length === 1);
    expect(await found("zanzibar quarterly")).toEqual([byTitle]);
    expect(await found("XYLOPHONE-tuning")).toEqual([byUrl]);
    expect(await found("okapi migration")).toEqual([byNotes]);
    expect(await found("quokka habitats")).toEqual([byContent]);
    // Words, not patterns: LIKE's wildcards match nothing; an excluded word excludes.
    expect(await found("zanzi%quarterly")).toEqual([]);
    expect(await found("zanzibar_review")).toEqual([]);
    expect(await found("quokka -habitats")).toEqual([]);
  });

  test("stats count by status and in a range, as the lists count them", async () => {
    const flagged = await save();
    const archived = await save();
    await save();
    await update(flagged, { status: "flagged" });
    await update(archived, { archived: true });
    const listed = async (q: string) => (await (await trove.api(`/api/items?limit=1&${q}`)).json()).count as number;
    const counts = {
      stashed: await listed("status=stashed"),
      flagged: await listed("status=flagged"),
      archived: await listed("status=archived"),
    };
    expect(Object.values(counts).every((n) => n > 0)).toBe(true);
    const stats = await (await trove.api("/api/stats?since=2000-01-01")).json();
    expect(stats.byStatus).toEqual(counts);
    expect(stats.total).toBe(counts.stashed + counts.flagged + counts.archived);
    expect(stats.range).toEqual({ since: 946684800, until: null, count: await listed("status=stashed,flagged,archived&since=2000-01-01") });
    expect(stats.range.count).toBe(stats.total);
    const future = await (await trove.api("/api/stats?since=2999-01-01")).json();
    expect(future).toMatchObject({ total: stats.total, range: { count: 0 } });
    expect((await trove.api("/api/stats?since=soon")).status).toBe(400);
  });
});

describe("scoped keys", () => {
  test("a key scoped to a tag sees only items carrying it: lists, gets, feed, highlights", async () => {
    const scopedKey = await addClientKey(trove, { scope: { tagSlugs: ["shared"] } });
    const inside = await save();
    const outside = await save();
    await update(inside, { tags: ["Shared"] });
    const list = await (await trove.api("/api/items?limit=1000", { key: scopedKey })).json();
    expect(list.items.map((i: any) => i.id)).toEqual([inside]);
    expect(list.count).toBe(1);
    expect((await trove.api(`/api/items/${inside}`, { key: scopedKey })).status).toBe(200);
    expect((await trove.api(`/api/items/${outside}`, { key: scopedKey })).status).toBe(404);
    expect((await update(outside, { title: "no" }, scopedKey)).status).toBe(404);
    const feed = await (await trove.api("/api/feed?limit=1000", { key: scopedKey })).json();
    expect(feed.items.map((i: any) => i.id)).toEqual([inside]);
    expect((await trove.api(`/api/items/${outside}/highlights`, { key: scopedKey })).status).toBe(404);
    const stats = await (await trove.api("/api/stats", { key: scopedKey })).json();
    expect(stats.total).toBe(1);
    expect((await trove.api(`/api/items/${outside}/media`, { key: scopedKey })).status).toBe(404);
  });

  test("a scoped key's bulk actions touch only items inside the scope; the others are not counted", async () => {
    const scopedKey = await addClientKey(trove, { scope: { tagSlugs: ["bulk-scope"] } });
    const inside = await save();
    const outside = await save();
    await update(inside, { tags: ["bulk-scope"] });
    const bulk = async (action: string) =>
      (await trove.api(`/api/items/${action}`, { method: "POST", key: scopedKey, json: { ids: [inside, outside] } })).json();
    expect(await bulk("mark-processed")).toEqual({ processed: 1 });
    expect(await bulk("archive")).toEqual({ requested: 2, archived: 1 });
    const untouched = await (await trove.api(`/api/items/${outside}`)).json();
    expect(untouched).toMatchObject({ status: "stashed", processedAt: null });
    expect(await bulk("delete")).toEqual({ requested: 2, deleted: 1 });
    expect((await trove.api(`/api/items/${outside}`)).status).toBe(200);
    expect((await trove.api(`/api/items/${inside}`)).status).toBe(404);
  });
});
