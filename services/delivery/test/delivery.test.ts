// Real: every service in-process (PGlite + the in-process bus, or PostgreSQL + NATS), the event log, and
// webhook receivers on 127.0.0.1 (Bun.serve) that verify each delivery with the standardwebhooks library on the raw
// body, as an integrator's receiver would. Retries run on a schedule of 50 ms steps and a 1 s answer deadline
// (TROVE_WEBHOOK_RETRY_DELAYS, TROVE_WEBHOOK_TIMEOUT_MS); the endpoint is disabled after 7 failed attempts in a row.
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { Webhook } from "standardwebhooks";
import { inTransaction } from "@trove/db";
import { articleHtml, eventually, hang, hangUp, startTrove, startWebhookReceiver, type ReceivedWebhook, type TestTrove, type WebhookReceiver } from "@trove/testing";

let trove: TestTrove;
const receivers: WebhookReceiver[] = [];
beforeAll(async () => {
  trove = await startTrove({
    TROVE_RATE_LIMIT: "100000",
    TROVE_WEBHOOK_RETRY_DELAYS: "0.05,0.05,0.05,0.05",
    TROVE_WEBHOOK_DISABLE_AFTER: "7",
    TROVE_WEBHOOK_TIMEOUT_MS: "1000",
  });
});
afterAll(async () => {
  for (const r of receivers) r.stop();
  await trove.stop();
});
// Every endpoint hears of every item change of the account: each test's endpoints go when it ends.
afterEach(async () => {
  for (const w of (await api("/api/webhooks?limit=1000")).webhooks) await trove.api(`/api/webhooks/${w.id}`, { method: "DELETE" });
});

function receiver(answer?: WebhookReceiver["answer"]): WebhookReceiver {
  const r = startWebhookReceiver(answer);
  receivers.push(r);
  return r;
}

async function endpoint(url: string, extra: Record<string, unknown> = {}): Promise<{ id: string; secret: string }> {
  const res = await trove.api("/api/webhooks", { method: "POST", json: { url, ...extra } });
  const body = await res.json();
  expect(res.status).toBe(200);
  return { id: body.endpoint.id, secret: body.secret };
}

const api = async (path: string, init?: Parameters<TestTrove["api"]>[1]) => (await trove.api(path, init)).json();
const deliveries = async (id: string): Promise<any[]> => (await api(`/api/webhooks/${id}/deliveries`)).deliveries;
const getEndpoint = async (id: string) => (await api(`/api/webhooks/${id}`)).endpoint;
const sendTest = async (id: string) => (await api(`/api/webhooks/${id}/test`, { method: "POST" })).delivery;

/** The delivery as the standardwebhooks library reads it from the raw body, or the library's refusal. */
function verified(secret: string, got: ReceivedWebhook): any {
  return new Webhook(secret).verify(got.body, got.headers);
}

/** Waits until the delivery reached a final state and answers it. */
async function settled(endpointId: string, deliveryId: string, ms = 10_000): Promise<any> {
  let found: any;
  await eventually(async () => {
    found = (await deliveries(endpointId)).find((d) => d.id === deliveryId);
    return found !== undefined && found.status !== "pending";
  }, ms);
  return found;
}

let serial = 0;
async function saveItem(extra: Record<string, unknown> = {}): Promise<string> {
  const n = serial++;
  const res = await api("/api/ingest", { method: "POST", json: { url: `https://hooks.example.test/item/${n}`, html: articleHtml, ...extra } });
  expect(res.ok).toBe(true);
  return res.id;
}
const updateItem = (id: string, json: Record<string, unknown>) => api(`/api/items/${id}`, { method: "POST", json });

describe("a signed delivery", () => {
  test("a test delivery arrives signed per Standard Webhooks: the library verifies the raw body", async () => {
    const r = receiver();
    const { id, secret } = await endpoint(`${r.url}/hooks/trove`);
    const queued = await sendTest(id);
    await eventually(() => r.received.length === 1);
    const got = r.received[0]!;
    expect(got.path).toBe("/hooks/trove");
    expect(got.headers["content-type"]).toBe("application/json");
    expect(got.headers["user-agent"]).toMatch(/^Trove-Webhooks\//);
    expect(got.headers["webhook-id"]).toBe(queued.id);
    expect(Number(got.headers["webhook-timestamp"])).toBeCloseTo(Date.now() / 1000, -2);
    const body = verified(secret, got);
    expect(body).toEqual({
      id: queued.id,
      type: "webhook.test",
      createdAt: queued.createdAt,
      accountId: expect.any(String),
      data: { eventId: queued.eventId, itemId: "", beforeScope: null, afterScope: null, payload: expect.any(Object) },
    });
    // Any change to the bytes breaks the signature.
    expect(() => verified(secret, { ...got, body: got.body.replace("webhook.test", "webhook.tesT") })).toThrow();
    expect(() => verified(secret, { ...got, headers: { ...got.headers, "webhook-id": "other" } })).toThrow();
    const [done] = [await settled(id, queued.id)];
    expect(done).toMatchObject({ status: "succeeded", attempts: 1, lastStatusCode: 204, lastError: null, nextAttemptAt: null });
    expect(done.attemptLog).toEqual([{ attempt: 1, startedAt: expect.any(Number), durationMs: expect.any(Number), statusCode: 204, error: null, message: null }]);
  });

  test("item events arrive signed, one per change, carrying scopes and no item content", async () => {
    const r = receiver();
    const { id, secret } = await endpoint(r.url);
    const itemId = await saveItem();
    await updateItem(itemId, { tags: ["reading"] });
    await updateItem(itemId, { tags: [] });
    await api("/api/items/delete", { method: "POST", json: { ids: [itemId] } });
    await eventually(() => r.received.length === 4);
    const bodies = r.received.map((got) => verified(secret, got));
    // Each delivery is its own message; their order over the wire is not promised, their content is.
    const byType = Object.fromEntries(bodies.map((b) => [b.type, b]));
    expect(Object.keys(byType).sort()).toEqual(["item.created", "item.deleted", "item.tagged", "item.untagged"]);
    for (const b of bodies) {
      expect(Object.keys(b).sort()).toEqual(["accountId", "createdAt", "data", "id", "type"]);
      expect(Object.keys(b.data).sort()).toEqual(["afterScope", "beforeScope", "eventId", "itemId", "payload"]);
      expect(b.data.itemId).toBe(itemId);
      expect(JSON.stringify(b)).not.toContain("Parsing Things Well"); // the article's title: no content travels
    }
    expect(byType["item.tagged"].data).toMatchObject({ afterScope: { tagSlugs: ["reading"] }, payload: { tagSlugsAdded: ["reading"] } });
    expect(byType["item.untagged"].data).toMatchObject({ beforeScope: { tagSlugs: ["reading"] }, afterScope: { tagSlugs: [] } });
    expect(byType["item.deleted"].data.afterScope).toBeNull();
    // data.eventId is the change event's id: the same events the change stream reports.
    const changes = await api(`/api/items/changes?updated_since=0&limit=1000`);
    const mine = changes.events.filter((e: any) => e.itemId === itemId);
    expect(bodies.map((b) => b.data.eventId).sort()).toEqual(mine.map((e: any) => e.id).sort());
    for (const e of mine) expect(byType[e.type].createdAt).toBe(e.changedAt);
    // webhook-id is the delivery id, and the deliveries list has each one, newest first.
    const list = await deliveries(id);
    expect(list.map((d) => d.id).sort()).toEqual(r.received.map((g) => g.headers["webhook-id"]).sort());
    expect([...list].sort((a, b) => b.createdAt - a.createdAt || (b.id < a.id ? -1 : 1)).map((d) => d.id)).toEqual(list.map((d) => d.id));
  });

  test("event types filter what an endpoint receives", async () => {
    const all = receiver();
    const deletes = receiver();
    const a = await endpoint(all.url);
    const d = await endpoint(deletes.url, { eventTypes: ["item.deleted"] });
    const itemId = await saveItem();
    await updateItem(itemId, { tags: ["filtered"] });
    await api("/api/items/delete", { method: "POST", json: { ids: [itemId] } });
    await eventually(() => all.received.length === 3 && deletes.received.length === 1);
    expect(verified(d.secret, deletes.received[0]!)).toMatchObject({ type: "item.deleted", data: { itemId } });
    expect(all.received.map((g) => verified(a.secret, g).type).sort()).toEqual(["item.created", "item.deleted", "item.tagged"]);
    // A later event for the "*" endpoint shows the deletes-only one was not simply slow.
    await saveItem();
    await eventually(() => all.received.length === 4);
    expect(deletes.received.length).toBe(1);
    expect((await deliveries(d.id)).length).toBe(1);
  });
});

describe("scope", () => {
  test("a tag-scoped endpoint hears of items with the tag, and item.removed_from_scope when one leaves", async () => {
    const r = receiver();
    const { id, secret } = await endpoint(r.url, { resourceScope: { tagSlugs: ["watched"] } });
    const outside = await saveItem();
    const inside = await saveItem();
    await updateItem(inside, { tags: ["watched"] }); // enters: item.tagged
    await updateItem(inside, { title: "Renamed" }); // in scope: item.updated
    await updateItem(outside, { title: "Not watched" }); // never in scope: nothing
    // Replacing the tags is two steps: "other" added (still in scope: item.tagged), then "watched" removed (leaves).
    await updateItem(inside, { tags: ["other"] });
    await updateItem(inside, { title: "Gone" }); // out of scope again: nothing
    await eventually(() => r.received.length === 4);
    const bodies = r.received.map((g) => verified(secret, g));
    expect(bodies.map((b) => b.type).sort()).toEqual(["item.removed_from_scope", "item.tagged", "item.tagged", "item.updated"]);
    expect(bodies.every((b) => b.data.itemId === inside)).toBe(true);
    const removed = bodies.find((b) => b.type === "item.removed_from_scope");
    expect(removed.data).toMatchObject({ beforeScope: { tagSlugs: ["watched", "other"] }, afterScope: { tagSlugs: ["other"] } });
    // One more in-scope change: once it is here, the out-of-scope ones before it were certainly not sent.
    await updateItem(inside, { tags: ["other", "watched"] });
    await eventually(() => r.received.length === 5);
    expect((await deliveries(id)).length).toBe(5);
  });

  test("a collection-scoped endpoint: deleting an item in it is delivered, removing it from the collection is removed_from_scope", async () => {
    const collection = (await api("/api/collections", { method: "POST", json: { name: "Hooked" } })).collection;
    const r = receiver();
    const { secret } = await endpoint(r.url, { resourceScope: { collectionId: collection.id }, eventTypes: ["item.removed_from_scope", "item.deleted", "item.collection_added"] });
    const a = await saveItem();
    const b = await saveItem();
    await updateItem(a, { collectionId: collection.id });
    await updateItem(b, { collectionId: collection.id });
    await updateItem(a, { collectionIds: [] });
    await api("/api/items/delete", { method: "POST", json: { ids: [b] } });
    await eventually(() => r.received.length === 4);
    const seen = r.received.map((g) => verified(secret, g)).map((x) => `${x.type} ${x.data.itemId === a ? "a" : "b"}`);
    expect(seen.sort()).toEqual(["item.collection_added a", "item.collection_added b", "item.deleted b", "item.removed_from_scope a"]);
  });
});

describe("retries", () => {
  test("a failing receiver is retried with the same webhook-id until it answers 2xx; each attempt is logged", async () => {
    const r = receiver((_, i) => new Response("busy", { status: i < 2 ? 500 : 200 }));
    const { id, secret } = await endpoint(r.url);
    const queued = await sendTest(id);
    const done = await settled(id, queued.id);
    expect(done).toMatchObject({ status: "succeeded", attempts: 3, lastStatusCode: 200, lastError: null, nextAttemptAt: null });
    expect(done.attemptLog.map((a: any) => [a.attempt, a.statusCode, a.error])).toEqual([
      [1, 500, "http_status"],
      [2, 500, "http_status"],
      [3, 200, null],
    ]);
    expect(r.received.map((g) => g.headers["webhook-id"])).toEqual([queued.id, queued.id, queued.id]);
    for (const g of r.received) expect(verified(secret, g).id).toBe(queued.id);
    expect((await getEndpoint(id)).consecutiveFailures).toBe(0);
  });

  test("at most 5 attempts, then the delivery has failed", async () => {
    const r = receiver(() => new Response("no", { status: 500 }));
    const { id } = await endpoint(r.url);
    const queued = await sendTest(id);
    const done = await settled(id, queued.id);
    expect(done).toMatchObject({ status: "failed", attempts: 5, lastStatusCode: 500, lastError: "http_status", nextAttemptAt: null });
    expect(done.attemptLog.map((a: any) => a.attempt)).toEqual([1, 2, 3, 4, 5]);
    expect(r.received.length).toBe(5);
    expect((await getEndpoint(id)).consecutiveFailures).toBe(5);
  });

  test("a receiver hanging past the deadline, one closing the connection, and a redirect each count as failed attempts", async () => {
    const answers: (() => ReturnType<WebhookReceiver["answer"]>)[] = [hang, hangUp, () => Response.redirect("http://127.0.0.1:9/elsewhere", 302), () => new Response("ok")];
    const r = receiver((_, i) => (answers[i] ?? answers[3]!)());
    const { id } = await endpoint(r.url);
    const queued = await sendTest(id);
    const done = await settled(id, queued.id);
    r.release();
    expect(done.status).toBe("succeeded");
    expect(done.attemptLog.map((a: any) => [a.statusCode, a.error])).toEqual([
      [null, "timeout"],
      [null, "network"],
      [302, "redirect"],
      [200, null],
    ]);
    expect(done.attemptLog[0].durationMs).toBeGreaterThanOrEqual(900);
    expect(r.received.map((g) => g.path)).toEqual(["/", "/", "/", "/"]);
  });

  test("Retry-After stretches the wait (up to an hour), never shortens it", async () => {
    const r = receiver((_, i) => (i === 0 ? new Response("later", { status: 503, headers: { "retry-after": "2" } }) : new Response("ok")));
    const { id } = await endpoint(r.url);
    const queued = await sendTest(id);
    await eventually(async () => (await deliveries(id))[0].attempts === 1);
    const waiting = (await deliveries(id))[0];
    const first = waiting.attemptLog[0];
    expect(waiting.status).toBe("pending");
    expect(waiting.nextAttemptAt - (first.startedAt + first.durationMs)).toBeGreaterThanOrEqual(2_000);
    expect((await settled(id, queued.id)).attempts).toBe(2);

    const far = receiver(() => new Response("much later", { status: 429, headers: { "retry-after": "86400" } }));
    const f = await endpoint(far.url);
    await sendTest(f.id);
    await eventually(async () => (await deliveries(f.id))[0].attempts === 1);
    const capped = (await deliveries(f.id))[0];
    const end = capped.attemptLog[0].startedAt + capped.attemptLog[0].durationMs;
    expect(capped.nextAttemptAt - end).toBeGreaterThanOrEqual(3_600_000 - 1);
    expect(capped.nextAttemptAt - end).toBeLessThanOrEqual(3_600_000 + 1);
    await trove.api(`/api/webhooks/${f.id}`, { method: "DELETE" });
  });
});

describe("disable, pause, resume", () => {
  test("7 failed attempts in a row disable the endpoint; its pending deliveries are dropped; enabled again, it starts clean", async () => {
    let healthy = false;
    const r = receiver(() => new Response(healthy ? "ok" : "down", { status: healthy ? 200 : 500 }));
    const { id } = await endpoint(r.url);
    const first = await sendTest(id);
    expect((await settled(id, first.id)).status).toBe("failed"); // attempts 1-5
    const second = await sendTest(id);
    const dropped = await settled(id, second.id); // attempts 6 and 7
    expect(dropped).toMatchObject({ status: "failed", attempts: 2, lastError: "endpoint_disabled", nextAttemptAt: null });
    const disabled = await getEndpoint(id);
    expect(disabled).toMatchObject({ status: "disabled", consecutiveFailures: 7 });
    expect(disabled.disabledAt).toBeGreaterThan(0);
    expect(r.received.length).toBe(7);
    const refused = await trove.api(`/api/webhooks/${id}/test`, { method: "POST" });
    expect(refused.status).toBe(409);
    expect((await refused.json()).error).toBe("endpoint_inactive");

    // Events while disabled make no deliveries. A second endpoint witnesses that the event was handled: one
    // handling makes the deliveries of every endpoint at once.
    const witness = receiver();
    await endpoint(witness.url);
    const itemId = await saveItem();
    await eventually(() => witness.received.some((g) => g.body.includes(itemId)));
    healthy = true;
    const enabled = (await api(`/api/webhooks/${id}`, { method: "PATCH", json: { status: "enabled" } })).endpoint;
    expect(enabled).toMatchObject({ status: "enabled", consecutiveFailures: 0, disabledAt: null });
    const third = await sendTest(id);
    expect((await settled(id, third.id)).status).toBe("succeeded");
    expect((await deliveries(id)).map((d) => d.id)).toEqual([third.id, second.id, first.id]);
  });

  test("a pause holds deliveries (events still queue, nothing is sent); resuming sends them at once", async () => {
    let open = false;
    const r = receiver(() => (open ? new Response("ok") : new Response("not now", { status: 503, headers: { "retry-after": "3600" } })));
    const { id, secret } = await endpoint(r.url);
    const queued = await sendTest(id);
    await eventually(async () => (await deliveries(id))[0].attempts === 1); // next attempt in an hour
    await api(`/api/webhooks/${id}`, { method: "PATCH", json: { status: "paused" } });
    const itemId = await saveItem();
    let held: any[] = [];
    await eventually(async () => (held = await deliveries(id)).length === 2);
    expect(held[0]).toMatchObject({ type: "item.created", status: "pending", attempts: 0 });
    expect(r.received.length).toBe(1);
    open = true;
    const resumed = (await api(`/api/webhooks/${id}`, { method: "PATCH", json: { status: "enabled" } })).endpoint;
    expect(resumed.status).toBe("enabled");
    await eventually(() => r.received.length === 3);
    expect((await settled(id, queued.id)).attempts).toBe(2);
    expect((await settled(id, held[0].id)).status).toBe("succeeded");
    expect(r.received.slice(1).map((g) => verified(secret, g).type).sort()).toEqual(["item.created", "webhook.test"]);
    expect(verified(secret, r.received.find((g) => g.body.includes("item.created"))!).data.itemId).toBe(itemId);
  });
});

describe("secret rotation", () => {
  test("during the overlap every delivery carries both signatures: a receiver holding either secret verifies", async () => {
    const r = receiver();
    const { id, secret: oldSecret } = await endpoint(r.url);
    const { secret: newSecret } = await api(`/api/webhooks/${id}/rotate-secret`, { method: "POST", json: {} });
    await sendTest(id);
    await eventually(() => r.received.length === 1);
    const got = r.received[0]!;
    expect(got.headers["webhook-signature"]!.split(" ")).toHaveLength(2);
    expect(verified(oldSecret, got).type).toBe("webhook.test");
    expect(verified(newSecret, got).type).toBe("webhook.test");

    const { secret: newest } = await api(`/api/webhooks/${id}/rotate-secret`, { method: "POST", json: { revokePrevious: true } });
    await sendTest(id);
    await eventually(() => r.received.length === 2);
    const after = r.received[1]!;
    expect(after.headers["webhook-signature"]!.split(" ")).toHaveLength(1);
    expect(verified(newest, after).type).toBe("webhook.test");
    expect(() => verified(newSecret, after)).toThrow();
    expect(() => verified(oldSecret, after)).toThrow();
  });
});

describe("idempotence", () => {
  test("an event the log hands over twice (at least once: replayed after a crash) makes one delivery per endpoint", async () => {
    const r = receiver();
    const { id } = await endpoint(r.url);
    const itemId = await saveItem();
    await eventually(() => r.received.length === 1);
    const [event] = (await api(`/api/items/changes?updated_since=0&limit=1000`)).events.filter((e: any) => e.itemId === itemId);
    const data = { id: event.id, accountId: JSON.parse(r.received[0]!.body).accountId, type: event.type, itemId, changedAt: event.changedAt, beforeScope: event.beforeScope, afterScope: event.afterScope, payload: event.payload };
    // The same message once more under another log entry (a stream of its own, so the change stream does not show
    // it): the log hands it over again; the delivery service must not send it again.
    await inTransaction(trove.db, (uow) =>
      trove.runtime.events.record(uow, { stream: "replayed", subject: `items.event.${event.type}`, accountId: data.accountId, key: itemId, at: event.changedAt, data }),
    );
    const marker = await saveItem(); // logged after the repeat: once it is delivered, the repeat was handled
    await eventually(async () => (await deliveries(id)).length >= 2 && r.received.some((g) => g.body.includes(marker)));
    expect((await deliveries(id)).map((d) => d.eventId).filter((e) => e === event.id)).toHaveLength(1);
    expect(r.received.filter((g) => g.body.includes(event.id))).toHaveLength(1);
  });
});
