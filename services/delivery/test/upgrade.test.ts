// An installation upgraded with deliveries open, as they were kept before the work queue (a lease and a due time on
// each delivery row): after the upgrade every pending delivery is sent from the queue, a paused endpoint's stay
// held until it is resumed, and nothing finished is sent again. The Trove starts first without the delivery
// service, whose schema is then made as the release before left it; the restart upgrades it. PGlite in a data
// directory + the in-process bus, or PostgreSQL + NATS; receivers on 127.0.0.1.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { sql } from "kysely";
import { Migrator } from "kysely/migration";
import { eventually, startTrove, startWebhookReceiver, type TestTrove, type WebhookReceiver } from "@trove/testing";
import * as webhooksBefore from "../migrations/2026-11-23T1200-webhooks.ts";
import { newSecret } from "../signing.ts";

let trove: TestTrove;
const receivers: WebhookReceiver[] = [];
beforeAll(async () => {
  trove = await startTrove({ TROVE_RATE_LIMIT: "100000" }, { persistent: true, without: ["delivery"] });
  // The delivery schema as the release before the work queue made it: its one migration then, recorded as the host
  // records it.
  await sql`create schema delivery`.execute(trove.db);
  const made = await new Migrator({
    db: trove.db,
    provider: { getMigrations: async () => ({ "2026-11-23T1200-webhooks": webhooksBefore }) },
    migrationTableSchema: "delivery",
  }).migrateToLatest();
  if (made.error) throw made.error;
});
afterAll(async () => {
  for (const r of receivers) r.stop();
  await trove.stop();
});

const api = async (path: string, init?: Parameters<TestTrove["api"]>[1]) => (await trove.api(path, init)).json();

async function aliceId(): Promise<string> {
  const { rows } = await sql<{ id: string }>`select id from gateway.accounts where email = 'alice@example.test'`.execute(trove.db);
  return rows[0]!.id;
}

describe("upgrade", () => {
  test("pending deliveries (one a stopped replica held) are sent after the upgrade; a paused endpoint's wait for its resume", async () => {
    const accountId = await aliceId();
    const now = Date.now();
    const open = startWebhookReceiver();
    const held = startWebhookReceiver();
    receivers.push(open, held);
    const endpoint = (id: string, url: string, status: string) => ({
      id,
      account_id: accountId,
      url,
      event_types: JSON.stringify(["*"]),
      status,
      secret: newSecret(),
      created_at: now,
      updated_at: now,
    });
    await trove.db.insertInto("delivery.endpoints").values([endpoint("ep-open", open.url, "enabled"), endpoint("ep-held", held.url, "paused")]).execute();
    const delivery = (id: string, endpointId: string, extra: Record<string, unknown> = {}) => ({
      id,
      account_id: accountId,
      endpoint_id: endpointId,
      event_id: `event-${id}`,
      type: "webhook.test",
      body: JSON.stringify({ id, type: "webhook.test", createdAt: now, accountId, data: { eventId: `event-${id}`, itemId: "", beforeScope: null, afterScope: null, payload: {} } }),
      status: "pending",
      next_attempt_at: now,
      created_at: now,
      ...extra,
    });
    await trove.db
      .insertInto("delivery.deliveries")
      .values([
        delivery("due", "ep-open"),
        // Leased by a replica stopped for the upgrade, its lease not yet run out; one attempt made already.
        delivery("leased", "ep-open", { attempts: 1, last_status_code: 500, last_error: "http_status", lease_until: now + 3_600_000, lease_token: "old" }),
        delivery("done", "ep-open", { status: "succeeded", attempts: 1, last_status_code: 204, next_attempt_at: null }),
        delivery("waiting", "ep-held"),
      ])
      .execute();

    await trove.restart();

    const ids = (r: WebhookReceiver) => r.received.map((g) => g.headers["webhook-id"]).sort();
    await eventually(() => open.received.length === 2, 30_000);
    expect(ids(open)).toEqual(["due", "leased"]);
    let list: any[] = [];
    await eventually(async () => (list = (await api("/api/webhooks/ep-open/deliveries")).deliveries).every((d: any) => d.status === "succeeded"), 30_000);
    expect(Object.fromEntries(list.map((d) => [d.id, d.attempts]))).toEqual({ due: 1, leased: 2, done: 1 });
    expect(held.received).toHaveLength(0);
    expect((await api("/api/webhooks/ep-held/deliveries")).deliveries[0]).toMatchObject({ id: "waiting", status: "pending", attempts: 0 });

    const resumed = await trove.api("/api/webhooks/ep-held", { method: "PATCH", json: { status: "enabled" } });
    expect(resumed.status).toBe(200);
    await eventually(async () => (await api("/api/webhooks/ep-held/deliveries")).deliveries[0].status === "succeeded", 30_000);
    expect(ids(held)).toEqual(["waiting"]);
    expect(ids(open)).toEqual(["due", "leased"]);
  }, 120_000);
});
