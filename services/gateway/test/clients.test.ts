// Real: every service in-process (PGlite + the in-process bus, or PostgreSQL + NATS), driven over HTTP.
// The connected-client routes: create (the key once), list (no secrets), revoke (that client only).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { aliceKey, articleHtml, bobKey, startTrove, type TestTrove } from "@trove/testing";

let trove: TestTrove;
beforeAll(async () => {
  trove = await startTrove({ TROVE_RATE_LIMIT: "1000000" });
});
afterAll(() => trove.stop());

const create = (json: unknown, key = aliceKey) => trove.api("/api/connected-clients", { method: "POST", json, key });
const list = async (key = aliceKey) => (await (await trove.api("/api/connected-clients", { key })).json()).clients as any[];
const revoke = (id: string, key = aliceKey) => trove.api("/api/connected-clients/revoke", { method: "POST", json: { id }, key });

describe("creating a connected client", () => {
  test("answers the client and a long prefixed key, once; the key works at once and is never listed", async () => {
    const res = await create({ name: "Reader app" });
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body.client).toEqual({ id: expect.any(String), name: "Reader app", access: "read_write", scope: null, createdAt: expect.any(Number) });
    expect(body.apiKey).toMatch(/^trove_ck_[A-Za-z0-9_-]{43}$/);
    expect((await trove.api("/api/me", { key: body.apiKey })).status).toBe(200);
    const listed = await list();
    const mine = listed.find((c) => c.id === body.client.id);
    expect(mine).toMatchObject({ name: "Reader app", access: "read_write", scope: null, lastUsedAt: expect.any(Number) });
    expect(JSON.stringify(listed)).not.toContain(body.apiKey);
    expect(JSON.stringify(listed)).not.toContain(body.apiKey.slice(9));
  });

  test("two keys are never the same", async () => {
    const keys = await Promise.all(Array.from({ length: 10 }, async () => (await (await create({ name: "many" })).json()).apiKey));
    expect(new Set(keys).size).toBe(10);
  });

  test("a read-only key reads and may not write", async () => {
    const { apiKey } = await (await create({ name: "ro", access: "read_only" })).json();
    expect((await trove.api("/api/items", { key: apiKey })).status).toBe(200);
    const write = await trove.api("/api/tags", { method: "POST", json: { name: "nope" }, key: apiKey });
    expect(write.status).toBe(403);
    expect((await write.json()).error).toBe("forbidden");
  });

  test("tag names become slugs, repeated ones once; the key sees only items carrying the tag", async () => {
    const res = await create({ name: "tagged", scope: { tagSlugs: ["Reading List", "reading-list", "Café"] } });
    expect(res.status).toBe(200);
    const { client, apiKey } = await res.json();
    expect(client.scope).toEqual({ tagSlugs: ["reading-list", "cafe"] });
    const inside = (await (await trove.api("/api/ingest", { method: "POST", json: { url: "https://scope.test/in", html: articleHtml } })).json()).id;
    const outside = (await (await trove.api("/api/ingest", { method: "POST", json: { url: "https://scope.test/out", html: articleHtml } })).json()).id;
    await trove.api(`/api/items/${inside}`, { method: "POST", json: { tags: ["Reading List"] } });
    expect((await trove.api(`/api/items/${inside}`, { key: apiKey })).status).toBe(200);
    expect((await trove.api(`/api/items/${outside}`, { key: apiKey })).status).toBe(404);
  });

  test("a collection scope names a collection of the account; another account's or an unknown one answers 400", async () => {
    const mine = (await (await trove.api("/api/collections", { method: "POST", json: { name: "Scoped shelf" } })).json()).collection.id;
    const bobs = (await (await trove.api("/api/collections", { method: "POST", json: { name: "Bob shelf" }, key: bobKey })).json()).collection.id;
    const ok = await create({ name: "shelf", scope: { collectionId: mine } });
    expect(ok.status).toBe(200);
    expect((await ok.json()).client.scope).toEqual({ collectionId: mine });
    for (const id of [bobs, "0190aaaa-0000-7000-8000-000000000000"]) {
      const res = await create({ name: "shelf", scope: { collectionId: id } });
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ error: "validation_failed", fields: { "scope.collectionId": expect.any(String) } });
    }
  });

  test("a scope with both, neither, or tags without letters answers 400 validation_failed", async () => {
    const cases: [unknown, string][] = [
      [{ tagSlugs: ["a"], collectionId: "abc" }, "scope"],
      [{}, "scope"],
      [{ tagSlugs: [] }, "scope.tagSlugs"],
      [{ tagSlugs: ["ok", "!!!"] }, "scope.tagSlugs.1"],
      [{ collectionId: "../x" }, "scope.collectionId"],
    ];
    for (const [scope, field] of cases) {
      const res = await create({ name: "bad", scope });
      expect(res.status).toBe(400);
      const body = await res.json();
      expect(body.error).toBe("validation_failed");
      expect(Object.keys(body.fields)).toContain(field);
    }
  });

  test("bad names and access values answer 400 validation_failed", async () => {
    for (const json of [{}, { name: "" }, { name: "x".repeat(201) }, { name: "a\u0000b" }, { name: "ok", access: "admin" }, { name: 42 }]) {
      const res = await create(json);
      expect(res.status).toBe(400);
      expect((await res.json()).error).toBe("validation_failed");
    }
  });
});

describe("listing connected clients", () => {
  test("the caller's account only, active ones only, newest first", async () => {
    const bobClient = (await (await create({ name: "bob's" }, bobKey)).json()).client;
    const first = (await (await create({ name: "first" })).json()).client;
    const second = (await (await create({ name: "second" })).json()).client;
    const gone = (await (await create({ name: "gone" })).json()).client;
    expect((await revoke(gone.id)).status).toBe(200);
    const ids = (await list()).map((c) => c.id);
    expect(ids).not.toContain(bobClient.id);
    expect(ids).not.toContain(gone.id);
    expect(ids.indexOf(second.id)).toBeLessThan(ids.indexOf(first.id));
    expect((await list(bobKey)).map((c) => c.id)).toEqual([bobClient.id]);
  });
});

describe("revoking a connected client", () => {
  test("that client's key stops working at once; the others keep working", async () => {
    const a = await (await create({ name: "a" })).json();
    const b = await (await create({ name: "b" })).json();
    for (const k of [a.apiKey, b.apiKey]) expect((await trove.api("/api/me", { key: k })).status).toBe(200);
    const res = await revoke(a.client.id);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ ok: true, id: a.client.id });
    const refused = await trove.api("/api/me", { key: a.apiKey });
    expect(refused.status).toBe(401);
    expect((await refused.json()).error).toBe("unauthorized");
    expect((await trove.api("/api/me", { key: b.apiKey })).status).toBe(200);
    expect((await trove.api("/api/me")).status).toBe(200);
  });

  test("another account's client, a personal key's id, an unknown or an already revoked id answer 404", async () => {
    const bobs = (await (await create({ name: "bob's" }, bobKey)).json()).client;
    const personal = (await trove.db.selectFrom("gateway.api_keys").select("id").where("kind", "=", "personal").executeTakeFirstOrThrow()).id as string;
    const once = (await (await create({ name: "once" })).json()).client;
    expect((await revoke(once.id)).status).toBe(200);
    for (const id of [bobs.id, personal, "0190aaaa-0000-7000-8000-000000000000", once.id]) {
      const res = await revoke(id);
      expect(res.status).toBe(404);
      expect((await res.json()).error).toBe("not_found");
    }
    // Bob's client still works.
    expect((await list(bobKey)).map((c) => c.id)).toContain(bobs.id);
    expect((await trove.api("/api/me")).status).toBe(200);
  });

  test("a malformed id answers 400", async () => {
    for (const id of ["../x", "", "a\u0000b", "x".repeat(65)]) {
      const res = await revoke(id);
      expect(res.status).toBe(400);
      expect((await res.json()).error).toBe("validation_failed");
    }
  });

  test("revoking many clients at once revokes each exactly once", async () => {
    const made = await Promise.all(Array.from({ length: 8 }, async (_, i) => (await (await create({ name: `par ${i}` })).json()) as { client: { id: string }; apiKey: string }));
    const answers = await Promise.all(made.flatMap((m) => [revoke(m.client.id), revoke(m.client.id)]));
    const statuses = answers.map((r) => r.status).sort();
    expect(statuses).toEqual([...Array(8).fill(200), ...Array(8).fill(404)]);
    for (const m of made) expect((await trove.api("/api/me", { key: m.apiKey })).status).toBe(401);
  });
});

describe("only personal keys manage clients", () => {
  test("a client key, even read-write, gets 403 on create, list and revoke", async () => {
    const { client, apiKey } = await (await create({ name: "client" })).json();
    for (const res of [await create({ name: "child" }, apiKey), await trove.api("/api/connected-clients", { key: apiKey }), await revoke(client.id, apiKey)]) {
      expect(res.status).toBe(403);
      expect((await res.json()).error).toBe("forbidden");
    }
  });
});
