// Real: every service in-process on a fresh PGlite and the in-process bus, driven over HTTP.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTrove, bobKey, type TestTrove } from "@trove/testing";

let trove: TestTrove;
beforeAll(async () => {
  trove = await startTrove();
});
afterAll(() => trove.stop());

const save = async (url: string, key?: string) => {
  const res = await trove.api("/api/ingest", { method: "POST", json: { url }, key });
  return { status: res.status, body: await res.json() };
};

describe("saving", () => {
  test("a saved URL can be read back by id and in the list", async () => {
    const { status, body } = await save("https://Blog.Example.test:443/post?id=7&utm_source=feed#comments");
    expect(status).toBe(200);
    expect(body).toMatchObject({ ok: true, url: "https://blog.example.test/post?id=7", extracted: false });
    const item = await (await trove.api(`/api/items/${body.id}`)).json();
    expect(item).toMatchObject({ id: body.id, url: "https://blog.example.test/post?id=7", status: "stashed", timesAdded: 1, tags: [] });
    expect(item.urlHash).toMatch(/^[0-9a-f]{32}$/);
    expect(item.createdAt).toBeGreaterThan(1_700_000_000);
    const list = await (await trove.api("/api/items")).json();
    expect(list.items.map((i: { id: string }) => i.id)).toContain(body.id);
    expect(list).toMatchObject({ limit: 200, offset: 0 });
  });

  test("saving the same page again returns the same item and counts the save", async () => {
    const first = await save("https://dup.example.test/a?gclid=1");
    const again = await save("https://DUP.example.test/a#top");
    expect(again.body.id).toBe(first.body.id);
    const item = await (await trove.api(`/api/items/${first.body.id}`)).json();
    expect(item.timesAdded).toBe(2);
  });

  test("only new items count toward the plan", async () => {
    const before = await (await trove.api("/api/me", { key: bobKey })).json();
    await save("https://count.example.test/1", bobKey);
    await save("https://count.example.test/1", bobKey);
    const after = await (await trove.api("/api/me", { key: bobKey })).json();
    expect(after.linkCountLifetime).toBe(before.linkCountLifetime + 1);
    expect(after.linkCountMonth).toBe(before.linkCountMonth + 1);
  });

  test("non-http(s) and malformed URLs answer 400 validation_failed", async () => {
    for (const url of ["javascript:alert(1)", "file:///etc/passwd", "data:text/html,hi", "ftp://a.test/x", "/relative", "not a url", "http://"]) {
      const { status, body } = await save(url);
      expect(status).toBe(400);
      expect(body.error).toBe("validation_failed");
      expect(body.fields.url).toBeString();
    }
  });
});

describe("reading", () => {
  test("another account's item is not found", async () => {
    const { body } = await save("https://private.example.test/");
    const res = await trove.api(`/api/items/${body.id}`, { key: bobKey });
    expect(res.status).toBe(404);
    expect((await res.json()).error).toBe("not_found");
    const list = await (await trove.api("/api/items", { key: bobKey })).json();
    expect(list.items.map((i: { id: string }) => i.id)).not.toContain(body.id);
  });

  test("status filter: archived only finds none, an unknown status answers 400", async () => {
    const archived = await (await trove.api("/api/items?status=archived")).json();
    expect(archived.items).toEqual([]);
    const bad = await trove.api("/api/items?status=stashed,bogus");
    expect(bad.status).toBe(400);
    expect(await bad.json()).toMatchObject({ error: "validation_failed", fields: { status: expect.stringContaining("bogus") } });
  });

  test("since/until take Unix seconds or ISO dates; anything else answers 400", async () => {
    const future = await (await trove.api("/api/items?since=2999-01-01")).json();
    expect(future.items).toEqual([]);
    const past = await (await trove.api("/api/items?since=0&until=4102444800")).json();
    expect(past.count).toBeGreaterThan(0);
    const bad = await trove.api("/api/items?since=yesterday");
    expect(bad.status).toBe(400);
    expect((await bad.json()).fields.since).toBeString();
  });

  test("limit and offset page through the list", async () => {
    for (let i = 0; i < 3; i++) await save(`https://page.example.test/${i}`);
    const all = await (await trove.api("/api/items")).json();
    const page = await (await trove.api("/api/items?limit=2&offset=1")).json();
    expect(page.items.length).toBe(2);
    expect(page.items[0].id).toBe(all.items[1].id);
    expect(page).toMatchObject({ limit: 2, offset: 1, count: all.count });
  });
});
