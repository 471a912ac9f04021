// The change stream over HTTP (GET /api/items/changes) and the consumers of the same item events in the event log.
// Real: every service on PGlite + the in-process bus, or PostgreSQL + NATS JetStream.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { sql } from "kysely";
import { itemEventsFilter, type ItemEventMessage } from "@trove/contracts";
import { addClientKey, bobKey, eventually, startTrove, type TestTrove } from "@trove/testing";

let trove: TestTrove;
beforeAll(async () => {
  trove = await startTrove();
});
afterAll(() => trove.stop());

let n = 0;
const html = "<article><h1>Post</h1><p>Some words worth keeping for later reading.</p></article>";
const save = async (key?: string) => {
  const res = await trove.api("/api/ingest", { method: "POST", json: { url: `https://changes${n}.example.test/p/${n++}`, html }, key });
  expect(res.status).toBe(200);
  return (await res.json()).id as string;
};
const update = async (id: string, body: unknown) => {
  const res = await trove.api(`/api/items/${id}`, { method: "POST", json: body });
  expect(res.status).toBe(200);
};
const changes = async (query: Record<string, string> = {}, key?: string) => {
  const res = await trove.api(`/api/items/changes?${new URLSearchParams(query)}`, { key });
  return { status: res.status, body: await res.json() };
};
/** The cursor at the end of the log now: what a client that has read everything holds. */
const head = async (key?: string): Promise<string> => {
  let cursor: string | undefined;
  for (;;) {
    const { body } = await changes(cursor ? { cursor, limit: "1000" } : { limit: "1000" }, key);
    cursor = body.nextCursor;
    if (!body.hasMore) return cursor!;
  }
};
/** Every event after `cursor`, walking pages of `limit`. */
const walk = async (cursor: string, query: Record<string, string> = {}, limit = 1000) => {
  const events: any[] = [];
  for (;;) {
    const { status, body } = await changes({ ...query, cursor, limit: String(limit) });
    expect(status).toBe(200);
    events.push(...body.events);
    cursor = body.nextCursor;
    if (!body.hasMore) return { events, cursor };
  }
};

describe("reading changes", () => {
  test("each change appears once, oldest first, with scopes, payload and the current item", async () => {
    const start = await head();
    const id = await save();
    await update(id, { tags: ["alpha"], title: "Renamed" });
    await update(id, { collectionId: "Reading" });
    const { events } = await walk(start);
    expect(events.map((e) => e.type)).toEqual(["item.created", "item.updated", "item.tagged", "item.collection_added"]);
    for (const e of events) {
      expect(e.itemId).toBe(id);
      expect(Number.isInteger(e.changedAt) && e.changedAt > 1e12).toBe(true);
      // The item as it is now, not as it was.
      expect(e.item).toMatchObject({ id, title: "Renamed", tagSlugs: ["alpha"], collectionName: "Reading" });
      expect(e.item.contentMarkdown).toBeUndefined();
    }
    expect(events[0].beforeScope).toBeNull();
    expect(events[0].afterScope).toEqual({ status: "stashed", tagSlugs: [], collectionIds: [] });
    expect(events[2].payload).toEqual({ changedFields: ["tags"], tagSlugsAdded: ["alpha"] });
    expect(events[1].payload.changedFields).toEqual(["title"]);
    expect(new Set(events.map((e) => e.id)).size).toBe(events.length);
  });

  test("a deleted item's events carry no item, and include=content adds content and Markdown", async () => {
    const start = await head();
    const kept = await save();
    const gone = await save();
    await trove.api("/api/items/delete", { method: "POST", json: { ids: [gone] } });
    const { events } = await walk(start, { include: "content" });
    const ofGone = events.filter((e) => e.itemId === gone);
    expect(ofGone.map((e) => e.type)).toEqual(["item.created", "item.deleted"]);
    for (const e of ofGone) expect(e.item).toBeUndefined();
    expect(ofGone[1].afterScope).toBeNull();
    const ofKept = events.find((e) => e.itemId === kept);
    expect(ofKept.item.contentMarkdown).toContain("Some words worth keeping");
    expect(ofKept.item.content.schemaVersion).toBe(2);
  });

  test("pages of any size visit every event exactly once, and the last cursor polls for new ones", async () => {
    const start = await head();
    const ids = [await save(), await save(), await save()];
    for (const id of ids) await update(id, { tags: ["paged"] });
    const all = (await walk(start)).events.map((e) => e.id);
    expect(all.length).toBe(6);
    for (const size of [1, 2, 5]) expect((await walk(start, {}, size)).events.map((e) => e.id)).toEqual(all);
    const { cursor } = await walk(start, {}, 4);
    const empty = await changes({ cursor });
    expect(empty.body).toMatchObject({ events: [], hasMore: false, limit: 200, nextCursor: cursor });
    await update(ids[0]!, { notes: "more" });
    const next = await walk(cursor);
    expect(next.events.map((e) => e.type)).toEqual(["item.updated"]);
  });

  test("walking while others write sees every event exactly once", async () => {
    const start = await head();
    const ids = await Promise.all(Array.from({ length: 4 }, () => save()));
    let writing = true;
    const writers = Promise.all(
      ids.map(async (id, w) => {
        for (let i = 0; i < 12; i++) await update(id, { notes: `writer ${w} change ${i}`, tags: i % 2 ? ["odd"] : ["even"] });
      }),
    ).finally(() => (writing = false));
    const seen: string[] = [];
    let cursor = start;
    // Small pages while the writers run, then to the end once they are done.
    while (writing) {
      const { body } = await changes({ cursor, limit: "3" });
      seen.push(...body.events.map((e: any) => e.id));
      cursor = body.nextCursor;
    }
    await writers;
    seen.push(...(await walk(cursor, {}, 7)).events.map((e) => e.id));
    const logged = (await walk(start)).events.map((e) => e.id);
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen).toEqual(logged);
    // Per item: created, then 12 changes of notes (item.updated) and tags (tagged; untagged from the second on).
    expect(logged.length).toBe(4 * (1 + 12 + 12 + 11));
  });

  test("updated_since starts at the first change at or after it", async () => {
    const id = await save();
    const { events } = await walk(await head());
    expect(events).toEqual([]);
    const before = Math.floor(Date.now() / 1000);
    await update(id, { notes: "later" });
    const { body } = await changes({ updated_since: String(before + 1) });
    for (const e of body.events) expect(e.changedAt).toBeGreaterThanOrEqual((before + 1) * 1000);
    const iso = await changes({ updated_since: new Date((before - 5) * 1000).toISOString() });
    expect(iso.body.events.some((e: any) => e.itemId === id && e.type === "item.updated")).toBe(true);
    const future = await changes({ updated_since: "4102444800" });
    expect(future.body).toMatchObject({ events: [], hasMore: false });
    // The cursor of an empty future page still sees what comes next.
    await update(id, { notes: "even later" });
    expect((await walk(future.body.nextCursor)).events.map((e) => e.type)).toEqual(["item.updated"]);
  });
});

describe("filters and scopes", () => {
  test("a tag filter shows only items carrying it, and item.removed_from_scope when one leaves", async () => {
    const start = await head();
    const inside = await save();
    const outside = await save();
    await update(inside, { tags: ["watched"] });
    await update(outside, { tags: ["other"] });
    await update(inside, { title: "still watched" });
    await update(inside, { tags: ["other"] });
    const { events } = await walk(start, { tags: "Watched" });
    // The swap to "other" is two steps: tagged "other" (still inside), then untagged "watched" (leaving): the
    // reader sees the leaving once.
    expect(events.map((e) => [e.itemId, e.type])).toEqual([
      [inside, "item.tagged"],
      [inside, "item.updated"],
      [inside, "item.tagged"],
      [inside, "item.removed_from_scope"],
    ]);
    // The item has left the scope: it is not attached any more, to any of its events.
    for (const e of events) expect(e.item).toBeUndefined();
    expect(events[3].beforeScope.tagSlugs).toEqual(["watched", "other"]);
    expect(events[3].afterScope.tagSlugs).toEqual(["other"]);
    expect(events[3].payload).toEqual({ changedFields: ["tags"], tagSlugsRemoved: ["watched"] });
  });

  test("a collection filter by name, slug or id; an unknown collection matches nothing", async () => {
    const start = await head();
    const id = await save();
    await update(id, { collectionId: "Filtered Things" });
    const byName = await walk(start, { collection: "Filtered Things" });
    const byId = await walk(start, { collection: byName.events[0].afterScope.collectionIds[0] });
    const bySlug = await walk(start, { collection: "filtered-things" });
    for (const r of [byName, byId, bySlug]) expect(r.events.map((e) => e.type)).toEqual(["item.collection_added"]);
    expect(byName.events[0].item.collectionSlug).toBe("filtered-things");
    expect((await walk(start, { collection: "no such collection" })).events).toEqual([]);
    await update(id, { collectionIds: [] });
    expect((await walk(start, { collection: "filtered-things" })).events.map((e) => e.type)).toEqual(["item.collection_added", "item.removed_from_scope"]);
  });

  test("a narrow filter over a long log answers short pages that still reach the end exactly once", async () => {
    const start = await head();
    const ids = await Promise.all(Array.from({ length: 30 }, () => save()));
    await update(ids[7]!, { tags: ["rare"] });
    const paged = await walk(start, { tags: "rare" }, 1);
    expect(paged.events.map((e) => [e.itemId, e.type])).toEqual([[ids[7], "item.tagged"]]);
  });

  test("another account sees only its own changes", async () => {
    const start = await head(bobKey);
    await save();
    const own = await save(bobKey);
    let cursor = start;
    const seen: any[] = [];
    for (;;) {
      const { body } = await changes({ cursor }, bobKey);
      seen.push(...body.events);
      cursor = body.nextCursor;
      if (!body.hasMore) break;
    }
    expect(seen.map((e) => e.itemId)).toEqual([own]);
  });
});

describe("refusals", () => {
  test("connected-client keys are refused: the change stream needs a personal key", async () => {
    const key = await addClientKey(trove);
    expect((await changes({}, key)).status).toBe(403);
    expect((await changes({}, key)).body.error).toBe("forbidden");
  });

  test("a malformed cursor, or another account's, answers 400 invalid_cursor", async () => {
    const bobs = await head(bobKey);
    for (const cursor of ["x", "not a cursor", Buffer.from("{}").toString("base64url"), Buffer.from('{"v":1,"a":"x","p":-1}').toString("base64url"), bobs]) {
      const { status, body } = await changes({ cursor });
      expect(status).toBe(400);
      expect(body.error).toBe("invalid_cursor");
    }
  });

  test("out-of-range limits and bad times answer 400 validation_failed", async () => {
    for (const q of <Record<string, string>[]>[{ limit: "0" }, { limit: "1001" }, { limit: "abc" }, { updated_since: "yesterday" }, { include: "everything" }]) {
      const { status, body } = await changes(q);
      expect(status).toBe(400);
      expect(body.error).toBe("validation_failed");
    }
  });
});

describe("the item events' consumers", () => {
  test("a consumer of the log is handed every item event once, in log order, as the change stream shows it", async () => {
    const start = await head();
    const ids = [await save(), await save()];
    await update(ids[0]!, { tags: ["relayed"] });
    await trove.api("/api/items/delete", { method: "POST", json: { ids: [ids[1]] } });
    const logged = (await walk(start)).events.map((e) => e.id);
    const got: ItemEventMessage[] = [];
    const sub = await trove.runtime.events.consume({ name: `watch-${crypto.randomUUID().slice(0, 8)}`, filter: itemEventsFilter }, async (batch) => {
      for (const ev of batch) {
        got.push(ev.data as unknown as ItemEventMessage);
        expect(ev.id).toBe((ev.data as unknown as ItemEventMessage).id);
      }
    });
    try {
      await eventually(() => logged.every((id) => got.some((m) => m.id === id)));
      const mine = got.filter((m) => logged.includes(m.id));
      expect(mine.map((m) => m.id)).toEqual(logged);
      expect(new Set(got.map((m) => m.id)).size).toBe(got.length);
      const positions = got.map((m) => m.position);
      expect(positions).toEqual([...positions].sort((a, b) => a - b));
      expect(mine[0]).toMatchObject({ type: "item.created", itemId: ids[0], beforeScope: null });
      expect(typeof mine[0]!.accountId).toBe("string");
    } finally {
      await sub.stop();
    }
  });

  test("a deleted tag shows as item.untagged on its items; the deletion's own announcement is no item change", async () => {
    const start = await head();
    const id = await save();
    await update(id, { tags: ["fleeting", "kept"] });
    expect((await trove.api("/api/tags/fleeting", { method: "DELETE" })).status).toBe(200);
    const id2 = await save();
    const seen = (await walk(start)).events;
    expect(seen.map((e) => [e.type, e.itemId])).toEqual([
      ["item.created", id],
      ["item.tagged", id],
      ["item.untagged", id],
      ["item.created", id2],
    ]);
    expect(seen[2].payload).toEqual({ changedFields: ["tags"], tagSlugsRemoved: ["fleeting"] });
  });
});

// PGlite has one connection, so no second holder of the publisher's lock can exist there.
const onPostgres = process.env.TROVE_TEST_STACK === "postgres-nats";
describe.skipIf(!onPostgres)("the relay while another process holds the publisher's lock (PostgreSQL only)", () => {
  test("the change stream still serves new events, and the relay publishes them once the lock is free", async () => {
    const start = await head();
    let release!: () => void;
    let locked!: () => void;
    const isLocked = new Promise<void>((r) => (locked = r));
    const holder = trove.db.transaction().execute(async (trx) => {
      await sql`select pg_advisory_xact_lock(7361012)`.execute(trx);
      locked();
      await new Promise<void>((r) => (release = r));
    });
    await isLocked;
    const id = await save();
    await update(id, { tags: ["held"] });
    const logged = (await walk(start)).events.map((e) => e.id);
    expect(logged.length).toBe(2);
    const unpublished = async () =>
      (await trove.db.selectFrom("eventlog.events").select("id").where("id", "in", logged).where("published_at", "is", null).execute()).length;
    expect(await unpublished()).toBe(2);
    release();
    await holder;
    await eventually(async () => (await unpublished()) === 0);
  });
});
