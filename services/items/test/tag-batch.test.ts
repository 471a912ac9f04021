// Real: every service in-process (PGlite + the in-process bus, or PostgreSQL + NATS), driven over HTTP.
// Renaming or deleting a tag on more items than PostgreSQL binds parameters in one statement (65,535) works.
// What the test is about goes through the API: the tag, one saved item that also carries another tag, the rename,
// the delete and every read. The scale is a fixture, built in SQL in one statement (70,000 items and their tag
// links; through the API that would be 70,000 saves, minutes on a busy machine, and nothing this test checks).
// The delete's 70,001 events are handled in the background while the reads go on: a consumer of the log takes
// them in batches (the search index refreshes 500 items a statement), one on the bus at most a few at once (its
// maxInFlight), so a read waits behind a few statements, not the burst. The 300 s
// timeout is a guard against a hang, not a measure.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { sql } from "kysely";
import { articleHtml, startTrove, type TestTrove } from "@trove/testing";

const bulk = 70_000;

let trove: TestTrove;
beforeAll(async () => {
  trove = await startTrove();
});
afterAll(() => trove.stop());

const json = async (path: string, init?: Parameters<TestTrove["api"]>[1]) => {
  const res = await trove.api(path, init);
  return { status: res.status, body: await res.json() };
};

/** Alice's items bulk-1 .. bulk-N, each carrying the tag `slug` (link rows and the item's own tag list): the fixture, in SQL. */
async function tagManyItems(slug: string, n: number) {
  await sql`with account as (select id from gateway.accounts where email = 'alice@example.test'),
    tag as (select t.id, t.name from items.tags t, account a where t.account_id = a.id and t.slug = ${slug}),
    made as (
      insert into items.items (id, account_id, url, url_hash, title, created_at, updated_at, last_seen_at, tags)
      select 'bulk-' || g, a.id, 'https://bulk.example.test/' || g, md5('bulk-' || g), 'Bulk ' || g, 1000 + g, 1000 + g, 1000 + g,
        jsonb_build_array(jsonb_build_object('name', tag.name, 'slug', ${slug}::text))
      from generate_series(1, ${n}::int) g, account a, tag
      returning id, account_id)
    insert into items.item_tags (account_id, item_id, tag_id, added_at) select made.account_id, made.id, tag.id, 1000 from made, tag`.execute(trove.db);
}

describe("a tag on more than 65,535 items", () => {
  test("is renamed on every item, then deleted from every item with an event each", async () => {
    expect((await json("/api/tags", { method: "POST", json: { name: "Bulk" } })).status).toBe(200);
    const saved = await json("/api/ingest", { method: "POST", json: { url: "https://bulk.example.test/saved", html: articleHtml } });
    await json(`/api/items/${saved.body.id}`, { method: "POST", json: { tags: ["Bulk", "Other"] } });
    await tagManyItems("bulk", bulk);
    expect((await json("/api/tags")).body.tags).toContainEqual({ name: "Bulk", slug: "bulk", itemCount: bulk + 1 });

    const renamed = await json("/api/tags/bulk", { method: "PATCH", json: { name: "Bulk Renamed" } });
    expect(renamed).toEqual({ status: 200, body: { tag: { name: "Bulk Renamed", slug: "bulk" } } });
    for (const id of ["bulk-1", `bulk-${bulk}`]) expect((await json(`/api/items/${id}`)).body.tags).toEqual(["Bulk Renamed"]);
    expect((await json(`/api/items/${saved.body.id}`)).body.tags).toEqual(["Bulk Renamed", "Other"]);
    const page = await json("/api/items?tags=bulk&limit=1000&offset=35000");
    expect(page.body.count).toBe(bulk + 1);
    expect(page.body.items).toHaveLength(1000);
    expect(new Set(page.body.items.map((i: { tags: string[] }) => i.tags.join()))).toEqual(new Set(["Bulk Renamed"]));

    const deleted = await json("/api/tags/bulk", { method: "DELETE" });
    expect(deleted).toEqual({ status: 200, body: { ok: true, slug: "bulk", itemsUntagged: bulk + 1 } });
    for (const id of ["bulk-1", `bulk-${bulk / 2}`, `bulk-${bulk}`]) expect((await json(`/api/items/${id}`)).body.tagSlugs).toEqual([]);
    expect((await json(`/api/items/${saved.body.id}`)).body.tagSlugs).toEqual(["other"]);
    const untagged = await json("/api/items?limit=1000&offset=69000");
    expect(untagged.body.count).toBe(bulk + 1);
    expect(untagged.body.items.filter((i: { tagSlugs: string[] }) => i.tagSlugs.length > 0)).toEqual([]);
    expect((await json("/api/tags")).body.tags.map((t: { slug: string }) => t.slug)).toEqual(["other"]);

    // One item.untagged event per item, in the event log the change stream reads.
    const events = await sql<{ n: number }>`select count(*)::int as n from eventlog.events
      where subject = 'items.event.item.untagged' and data->'payload'->'tagSlugsRemoved' = '["bulk"]'::jsonb`.execute(trove.db);
    expect(events.rows[0]!.n).toBe(bulk + 1);
  }, 300_000);
});
