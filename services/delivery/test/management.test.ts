// Real: every service in-process (PGlite + the in-process bus, or PostgreSQL + NATS), driven over HTTP; no
// delivery here reaches a receiver (they are not what is tested). Webhook management: shapes, rules, ownership and
// bad input.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { bobKey, startTrove, type TestTrove } from "@trove/testing";

let trove: TestTrove;
beforeAll(async () => {
  trove = await startTrove({ TROVE_RATE_LIMIT: "100000" });
});
afterAll(() => trove.stop());

// Port 9 (discard) on loopback: nothing listens, so any delivery fails at once and quietly.
const nowhere = (n: string | number) => `http://127.0.0.1:9/hook/${n}`;

async function create(json: Record<string, unknown>, key?: string) {
  const res = await trove.api("/api/webhooks", { method: "POST", json, key });
  return { status: res.status, body: await res.json() };
}

describe("creating and reading endpoints", () => {
  test("create answers the endpoint and a whsec_ secret shown only there", async () => {
    const before = Date.now();
    const { status, body } = await create({ name: " Zapier ", url: nowhere("a"), eventTypes: ["item.created", "item.tagged"] });
    expect(status).toBe(200);
    expect(body.secret).toMatch(/^whsec_[A-Za-z0-9+/]{32}$/);
    expect(body.endpoint).toMatchObject({
      name: "Zapier",
      url: nowhere("a"),
      eventTypes: ["item.created", "item.tagged"],
      resourceScope: null,
      status: "enabled",
      consecutiveFailures: 0,
      disabledAt: null,
      previousSecretExpiresAt: null,
    });
    expect(body.endpoint.createdAt).toBeGreaterThanOrEqual(before);
    expect(body.endpoint.createdAt).toBeLessThanOrEqual(Date.now());
    const got = await trove.api(`/api/webhooks/${body.endpoint.id}`);
    expect(got.status).toBe(200);
    const text = await got.text();
    expect(JSON.parse(text)).toEqual({ endpoint: body.endpoint });
    expect(text).not.toContain(body.secret);
    const list = await (await trove.api("/api/webhooks")).text();
    expect(list).not.toContain("whsec_");
  });

  test("defaults: every event type, no scope, no name", async () => {
    const { body } = await create({ url: nowhere("defaults") });
    expect(body.endpoint).toMatchObject({ name: "", eventTypes: ["*"], resourceScope: null });
  });

  test("a tag scope or a collection scope, not both", async () => {
    expect((await create({ url: nowhere("t"), resourceScope: { tagSlugs: ["reading", "reading", "work"] } })).body.endpoint.resourceScope).toEqual({
      tagSlugs: ["reading", "work"],
    });
    expect((await create({ url: nowhere("c"), resourceScope: { collectionId: "0193f1d2-aaaa-7bbb-8ccc-000000000001" } })).body.endpoint.resourceScope).toEqual({
      collectionId: "0193f1d2-aaaa-7bbb-8ccc-000000000001",
    });
    for (const resourceScope of [{ tagSlugs: ["a"], collectionId: "c1" }, { tagSlugs: [] }, {}, { tagSlugs: ["Not A Slug"] }, { collectionId: "" }, "tag"]) {
      const { status, body } = await create({ url: nowhere("bad-scope"), resourceScope });
      expect({ resourceScope, status, error: body.error }).toEqual({ resourceScope, status: 400, error: "validation_failed" });
    }
  });

  test("event types: known ones or * alone; an unknown one is refused", async () => {
    for (const eventTypes of [["item.exploded"], [], ["*", "item.created"], ["ITEM.CREATED"], "item.exploded", "*"]) {
      const { status, body } = await create({ url: nowhere("types"), eventTypes });
      expect({ eventTypes, status, error: body.error }).toEqual({ eventTypes, status: 400, error: "validation_failed" });
      expect(Object.keys(body.fields ?? {}).some((k) => k.startsWith("eventTypes"))).toBe(true);
    }
    const ok = await create({ url: nowhere("types"), eventTypes: ["item.removed_from_scope", "item.deleted", "item.deleted"] });
    expect(ok.body.endpoint.eventTypes).toEqual(["item.removed_from_scope", "item.deleted"]);
  });

  test("URLs: http(s) only, absolute, without credentials", async () => {
    for (const url of ["ftp://127.0.0.1/x", "javascript:alert(1)", "/relative", "not a url", "http://user:pass@127.0.0.1:9/x", "file:///etc/passwd"]) {
      const { status, body } = await create({ url });
      expect({ url, status, error: body.error }).toEqual({ url, status: 400, error: "validation_failed" });
      expect(body.fields?.url).toBeString();
    }
    expect((await create({ url: "https://hooks.example.invalid/trove" })).status).toBe(200);
  });

  test("lists are newest first, paginated, with a count; out-of-range paging is refused", async () => {
    const ids: string[] = [];
    for (let i = 0; i < 3; i++) ids.push((await create({ url: nowhere(`page${i}`), name: `page ${i}` })).body.endpoint.id);
    const first = await (await trove.api("/api/webhooks?limit=2")).json();
    expect(first.limit).toBe(2);
    expect(first.offset).toBe(0);
    expect(first.webhooks.map((w: any) => w.id)).toEqual([ids[2], ids[1]]);
    const second = await (await trove.api("/api/webhooks?limit=2&offset=2")).json();
    expect(second.webhooks[0].id).toBe(ids[0]);
    expect(second.count).toBe(first.count);
    for (const q of ["limit=0", "limit=1001", "offset=-1", "limit=abc", "offset=99999999999"]) {
      const res = await trove.api(`/api/webhooks?${q}`);
      expect({ q, status: res.status }).toEqual({ q, status: 400 });
      expect((await res.json()).error).toBe("validation_failed");
    }
  });
});

describe("changing endpoints", () => {
  test("PATCH changes name, URL, types and scope; null clears the scope", async () => {
    const { body } = await create({ url: nowhere("patch"), resourceScope: { tagSlugs: ["x"] } });
    const id = body.endpoint.id;
    const res = await trove.api(`/api/webhooks/${id}`, {
      method: "PATCH",
      json: { name: "renamed", url: nowhere("patched"), eventTypes: ["item.deleted"], resourceScope: null },
    });
    expect(res.status).toBe(200);
    const { endpoint } = await res.json();
    expect(endpoint).toMatchObject({ id, name: "renamed", url: nowhere("patched"), eventTypes: ["item.deleted"], resourceScope: null, status: "enabled" });
    expect(endpoint.updatedAt).toBeGreaterThanOrEqual(body.endpoint.updatedAt);
    expect((await (await trove.api(`/api/webhooks/${id}`)).json()).endpoint).toEqual(endpoint);
  });

  test("status: paused and enabled are the user's; disabled is not", async () => {
    const id = (await create({ url: nowhere("status") })).body.endpoint.id;
    const paused = await trove.api(`/api/webhooks/${id}`, { method: "PATCH", json: { status: "paused" } });
    expect((await paused.json()).endpoint.status).toBe("paused");
    for (const status of ["disabled", "off", "ENABLED", ""]) {
      const res = await trove.api(`/api/webhooks/${id}`, { method: "PATCH", json: { status } });
      expect({ status, code: res.status }).toEqual({ status, code: 400 });
    }
    const enabled = await trove.api(`/api/webhooks/${id}`, { method: "PATCH", json: { status: "enabled" } });
    expect((await enabled.json()).endpoint.status).toBe("enabled");
  });

  test("a test delivery goes to an enabled endpoint only (409 endpoint_inactive when paused)", async () => {
    const id = (await create({ url: nowhere("test") })).body.endpoint.id;
    const queued = await trove.api(`/api/webhooks/${id}/test`, { method: "POST" });
    expect(queued.status).toBe(200);
    const { delivery } = await queued.json();
    expect(delivery).toMatchObject({ type: "webhook.test", attempts: 0, lastStatusCode: null, attemptLog: [] });
    expect(delivery.id).not.toBe(delivery.eventId);
    await trove.api(`/api/webhooks/${id}`, { method: "PATCH", json: { status: "paused" } });
    const refused = await trove.api(`/api/webhooks/${id}/test`, { method: "POST" });
    expect(refused.status).toBe(409);
    expect(await refused.json()).toMatchObject({ error: "endpoint_inactive", status: "paused" });
    const list = await (await trove.api(`/api/webhooks/${id}/deliveries`)).json();
    expect(list.deliveries.map((d: any) => d.id)).toEqual([delivery.id]);
    expect(list).toMatchObject({ limit: 50, offset: 0, count: 1 });
  });

  test("rotation answers a new secret and when the previous one stops signing; revokePrevious ends it now", async () => {
    const { body } = await create({ url: nowhere("rotate") });
    const id = body.endpoint.id;
    const before = Date.now();
    const rotated = await (await trove.api(`/api/webhooks/${id}/rotate-secret`, { method: "POST" })).json();
    expect(rotated.secret).toMatch(/^whsec_/);
    expect(rotated.secret).not.toBe(body.secret);
    expect(rotated.previousSecretExpiresAt).toBeGreaterThanOrEqual(before + 24 * 3600_000);
    expect(rotated.previousSecretExpiresAt).toBeLessThanOrEqual(Date.now() + 24 * 3600_000);
    expect((await (await trove.api(`/api/webhooks/${id}`)).json()).endpoint.previousSecretExpiresAt).toBe(rotated.previousSecretExpiresAt);
    const revoked = await (await trove.api(`/api/webhooks/${id}/rotate-secret`, { method: "POST", json: { revokePrevious: true } })).json();
    expect(revoked.previousSecretExpiresAt).toBeNull();
    expect((await (await trove.api(`/api/webhooks/${id}`)).json()).endpoint.previousSecretExpiresAt).toBeNull();
    const bad = await trove.api(`/api/webhooks/${id}/rotate-secret`, { method: "POST", json: { revokePrevious: "yes" } });
    expect(bad.status).toBe(400);
  });

  test("delete removes the endpoint and its deliveries; a second delete is 404", async () => {
    const id = (await create({ url: nowhere("delete") })).body.endpoint.id;
    await trove.api(`/api/webhooks/${id}/test`, { method: "POST" });
    const res = await trove.api(`/api/webhooks/${id}`, { method: "DELETE" });
    expect(await res.json()).toEqual({ ok: true, id });
    for (const [method, path] of [["GET", ""], ["DELETE", ""], ["GET", "/deliveries"], ["POST", "/test"]]) {
      expect((await trove.api(`/api/webhooks/${id}${path}`, { method })).status).toBe(404);
    }
  });
});

describe("who may see what", () => {
  test("another account's endpoint is not found, on every route, and is left untouched", async () => {
    const { body } = await create({ url: nowhere("alice") });
    const id = body.endpoint.id;
    const routes: [string, string, unknown?][] = [
      ["GET", ""],
      ["PATCH", "", { name: "bob was here" }],
      ["DELETE", ""],
      ["POST", "/test"],
      ["POST", "/rotate-secret"],
      ["GET", "/deliveries"],
    ];
    for (const [method, path, json] of routes) {
      const res = await trove.api(`/api/webhooks/${id}${path}`, { method, json, key: bobKey });
      expect({ method, path, status: res.status }).toEqual({ method, path, status: 404 });
      expect((await res.json()).error).toBe("not_found");
    }
    expect((await (await trove.api(`/api/webhooks/${id}`)).json()).endpoint).toEqual(body.endpoint);
    const bobs = await (await trove.api("/api/webhooks", { key: bobKey })).json();
    expect(bobs.webhooks.map((w: any) => w.id)).not.toContain(id);
  });

  test("malformed and unknown ids answer 4xx, never 5xx", async () => {
    for (const id of ["nope", "0193f1d2-aaaa-7bbb-8ccc-000000000000", "a%00b", "%F0%9F%92%A9", "x".repeat(65), "..%2F..%2Fetc", "'%3B--"]) {
      const res = await trove.api(`/api/webhooks/${id}`);
      expect({ id, status: res.status >= 400 && res.status < 500 }).toEqual({ id, status: true });
    }
  });

  test("NUL characters, lone surrogates and huge strings are refused naming the field", async () => {
    for (const [field, value] of [
      ["name", "a\u0000b"],
      ["name", "a\ud800b"],
      ["url", "http://127.0.0.1:9/\u0000"],
      ["url", "http://127.0.0.1:9/\udc00"],
      ["name", "x".repeat(100_000)],
      ["url", `http://127.0.0.1:9/${"x".repeat(100_000)}`],
    ] as const) {
      const { status, body } = await create({ url: nowhere("input"), [field]: value });
      expect({ field, status, error: body.error }).toEqual({ field, status: 400, error: "validation_failed" });
      expect(Object.keys(body.fields ?? {})).toContain(field);
    }
  });
});
