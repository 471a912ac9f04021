// Real: every service in-process (PGlite + the in-process bus, or PostgreSQL + NATS). items.internal.itemRefs is a
// bus subject between services (no HTTP route): asked here over the bus the way the notes service asks it, with a
// caller header, after the items were made over HTTP.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { itemRefsSubject, type Caller, type ItemRefsReply, type ItemRefsRequest, type KeyScope } from "@trove/contracts";
import { callerHeaders } from "@trove/host";
import { articleHtml, bobKey, startTrove, type TestTrove } from "@trove/testing";

let trove: TestTrove;
let alice = "";
beforeAll(async () => {
  trove = await startTrove({ TROVE_RATE_LIMIT: "100000" });
  alice = await accountOf(await saveItem());
});
afterAll(() => trove.stop());

const ok = async (path: string, init?: Parameters<TestTrove["api"]>[1]) => {
  const res = await trove.api(path, init);
  const body = await res.json();
  if (res.status !== 200) throw new Error(`${init?.method ?? "GET"} ${path} answered ${res.status}: ${JSON.stringify(body)}`);
  return body;
};
let n = 0;
const saveItem = async (key?: string) => (await ok("/api/ingest", { method: "POST", key, json: { url: `https://refs.example.test/${++n}`, html: articleHtml } })).id as string;

const caller = (accountId: string, scope: KeyScope | null = null): Caller => ({
  accountId,
  keyId: "test",
  keyKind: scope ? "client" : "personal",
  access: "read_write",
  scope,
  plan: { name: "pro", linkLimit: 1000, limitScope: "lifetime" },
});
const refs = (c: Caller, req: ItemRefsRequest) => trove.bus.request(itemRefsSubject, req, { headers: callerHeaders(c) }) as Promise<ItemRefsReply>;
const accountOf = async (itemId: string) =>
  (await trove.db.selectFrom("items.items").select("account_id").where("id", "=", itemId).executeTakeFirstOrThrow()).account_id as string;

describe("items.internal.itemRefs", () => {
  test("answers the caller's items in the order asked; missing and other accounts' items are left out", async () => {
    const a = await saveItem();
    const b = await saveItem();
    const bobs = await saveItem(bobKey);
    await ok(`/api/items/${b}`, { method: "POST", json: { tags: ["Deep Work"] } });
    await ok("/api/items/archive", { method: "POST", json: { ids: [b] } });
    const reply = await refs(caller(alice), { itemIds: [b, "missing", bobs, a, a] });
    expect(reply.items.map((i) => i.id)).toEqual([b, a]);
    expect(reply.items[0]).toMatchObject({ id: b, title: "Parsing Things Well", url: `https://refs.example.test/${n - 1}`, status: "archived", tags: ["Deep Work"], highlights: [] });
    expect(reply.items[0]!.excerpt).toBeUndefined();
    expect(reply.highlights).toEqual([]);
  });

  test("a scoped caller sees only items in its scope, and highlights only of those", async () => {
    const inside = await saveItem();
    const outside = await saveItem();
    await ok(`/api/items/${inside}`, { method: "POST", json: { tags: ["in-scope"] } });
    const hIn = (await ok(`/api/items/${inside}/highlights`, { method: "POST", json: { text: "Parsing" } })).highlight.id;
    const hOut = (await ok(`/api/items/${outside}/highlights`, { method: "POST", json: { text: "Parsing" } })).highlight.id;
    const scoped = caller(alice, { tagSlugs: ["in-scope"] });
    const reply = await refs(scoped, { itemIds: [inside, outside], highlightIds: [hIn, hOut], highlightsPerItem: 5 });
    expect(reply.items.map((i) => i.id)).toEqual([inside]);
    expect(reply.items[0]!.highlights.map((h) => h.id)).toEqual([hIn]);
    expect(reply.highlights).toEqual([{ id: hIn, itemId: inside, text: "Parsing", note: "" }]);
    // The whole account, unscoped: both.
    expect((await refs(caller(alice), { itemIds: [], highlightIds: [hIn, hOut] })).highlights.map((h) => h.itemId).sort()).toEqual([inside, outside].sort());
  });

  test("bounded: at most 100 ids, contentBytes and highlightsPerItem checked; excerpts cut in bytes", async () => {
    const id = await saveItem();
    const many = Array.from({ length: 101 }, (_, i) => `id-${i}`);
    for (const req of [
      { itemIds: many },
      { itemIds: [id], highlightIds: many },
      { itemIds: [id], contentBytes: -1 },
      { itemIds: [id], contentBytes: 70_000 },
      { itemIds: [id], highlightsPerItem: 6 },
      { itemIds: "x" },
    ]) {
      await expect(refs(caller(alice), req as ItemRefsRequest)).rejects.toMatchObject({ code: "validation_failed" });
    }
    const [item] = (await refs(caller(alice), { itemIds: [id], contentBytes: 50 })).items;
    expect(Buffer.byteLength(item!.excerpt!)).toBeLessThanOrEqual(50);
    expect(item!.contentTruncated).toBe(true);
  });

  test("a request without a caller is refused", async () => {
    await expect(trove.bus.request(itemRefsSubject, { itemIds: [] })).rejects.toMatchObject({ code: "unauthorized" });
  });
});
