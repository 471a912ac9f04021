// Real: every service in-process (PGlite + the in-process bus, or PostgreSQL + NATS), driven over HTTP.
// A list page's `count` by status, one tag or one collection comes from counter rows kept by triggers
// (docs/decisions.md, "List counts (counter rows)"); with any other filter (here `since=0`, which every item passes) the items
// are counted. Both must agree after every kind of write, sequential and in parallel; so must `/api/stats`.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { sql } from "kysely";
import { addClientKey, articleHtml, bobKey, eventually, startTrove, type TestTrove } from "@trove/testing";

let trove: TestTrove;
beforeAll(async () => {
  trove = await startTrove({ TROVE_RATE_LIMIT: "1000000" });
});
afterAll(() => trove.stop());

let n = 0;
const save = async (key?: string) => {
  const res = await trove.api("/api/ingest", { method: "POST", key, json: { url: `https://counts.example.test/a/${n++}`, html: articleHtml } });
  expect(res.status).toBe(200);
  return (await res.json()).id as string;
};
const post = async (path: string, json: unknown) => {
  const res = await trove.api(path, { method: "POST", json });
  expect(res.status).toBe(200);
};
const count = async (query: string, key?: string) => {
  const res = await trove.api(`/api/items?limit=1&${query}`, { key });
  expect(res.status).toBe(200);
  return (await res.json()).count as number;
};

const lists = ["", "status=archived", "status=stashed,flagged,archived", "tags=red", "tags=blue", "tags=red&status=archived", "collection=shelf", "collection=shelf&status=archived,stashed", "tags=no-such-tag"];

/** Each list's count from the counters beside the same list counted item by item. */
async function expectCountsAgree() {
  for (const list of lists) {
    const kept = await count(list);
    expect({ list, count: kept }).toEqual({ list, count: await count(`${list}&since=0`) });
  }
  // The statistics' totals by status come from the same rows.
  const stats = await (await trove.api("/api/stats")).json();
  for (const status of ["stashed", "flagged", "archived"]) expect({ status, n: stats.byStatus[status] }).toEqual({ status, n: await count(`status=${status}&since=0`) });
  expect(stats.total).toBe(await count("status=stashed,flagged,archived&since=0"));
}

describe("list counts", () => {
  test("agree with the items counted after saves, tags, collections, archiving, deletes and a deleted tag", async () => {
    await post("/api/collections", { name: "Shelf" });
    const ids: string[] = [];
    for (let i = 0; i < 12; i++) ids.push(await save());
    expect(await count("")).toBe(12);
    for (const [i, id] of ids.entries()) {
      await post(`/api/items/${id}`, { tags: i % 2 ? ["red"] : ["red", "blue"], ...(i % 3 === 0 ? { collectionId: "shelf" } : {}) });
    }
    expect(await count("tags=red")).toBe(12);
    expect(await count("tags=blue")).toBe(6);
    expect(await count("collection=shelf")).toBe(4);
    await expectCountsAgree();

    await post("/api/items/archive", { ids: ids.slice(0, 5) });
    await post(`/api/items/${ids[0]}`, { archived: false });
    await post(`/api/items/${ids[6]}`, { tags: ["blue"], collectionIds: [] });
    expect(await count("status=archived")).toBe(4);
    expect(await count("tags=red&status=archived")).toBe(4);
    await expectCountsAgree();

    await post("/api/items/delete", { ids: [ids[1], ids[2], ids[9]] });
    expect(await count("")).toBe(12 - 4 - 1); // two of the three deleted were archived
    expect(await count("status=archived")).toBe(2);
    await expectCountsAgree();

    // A key scoped to one tag or one collection lists that tag's or collection's items: kept counts too.
    const collection = (await (await trove.api("/api/collections")).json()).collections.find((c: any) => c.slug === "shelf");
    for (const scope of [{ tagSlugs: ["red"] }, { collectionId: collection.id as string }, { tagSlugs: ["red", "blue"] }]) {
      const key = await addClientKey(trove, { scope });
      for (const list of ["", "status=archived", "tags=red", "tags=blue", "collection=shelf"]) {
        expect({ scope, list, count: await count(list, key) }).toEqual({ scope, list, count: await count(`${list}&since=0`, key) });
      }
    }
    expect(await count("", await addClientKey(trove, { scope: { tagSlugs: ["red"] } }))).toBe(await count("tags=red"));

    expect((await trove.api("/api/tags/blue", { method: "DELETE" })).status).toBe(200);
    expect(await count("tags=blue")).toBe(0);
    await expectCountsAgree();
    // Another account's items are counted in its own lists only.
    await save(bobKey);
    expect(await count("", bobKey)).toBe(1);
    expect(await count("")).toBe(7);
  });

  test("stay exact under parallel saves, tagging and archiving, and after their rows are folded", async () => {
    const before = await count("status=stashed,flagged,archived");
    const ids = await Promise.all(Array.from({ length: 24 }, () => save()));
    await Promise.all(ids.map((id, i) => post(`/api/items/${id}`, { tags: ["parallel"], ...(i % 2 ? { archived: true } : {}) })));
    await Promise.all([
      post("/api/items/archive", { ids: ids.slice(0, 8) }),
      ...ids.slice(8, 16).map((id) => post(`/api/items/${id}`, { archived: false })),
      trove.api("/api/items/delete", { method: "POST", json: { ids: ids.slice(20) } }),
    ]);
    expect(await count("status=stashed,flagged,archived")).toBe(before + 20);
    expect(await count("tags=parallel&status=stashed,flagged,archived")).toBe(20);
    expect(await count("tags=parallel")).toBe(await count("tags=parallel&since=0"));
    expect(await count("tags=parallel&status=archived")).toBe(await count("tags=parallel&status=archived&since=0"));

    // Hundreds of changes to one list leave hundreds of rows; a read folds them (after answering) into one per status.
    for (let round = 0; round < 6; round++) await post("/api/items/archive", { ids }).then(() => Promise.all(ids.slice(0, 20).map((id) => post(`/api/items/${id}`, { archived: false }))));
    const rows = () => sql<{ n: number }>`select count(*)::int as n from items.list_counts c join items.tags t on c.list = 't:' || t.id where t.slug = 'parallel'`.execute(trove.db).then((r) => r.rows[0]!.n);
    expect(await rows()).toBeGreaterThan(256);
    const counted = await count("tags=parallel");
    expect(counted).toBe(20);
    await eventually(async () => (await rows()) <= 3);
    expect(await count("tags=parallel")).toBe(20);
    expect(await count("tags=parallel&status=archived")).toBe(0);
    await expectCountsAgree();
  });
});
