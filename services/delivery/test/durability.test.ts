// Real: every service in-process (PGlite in the data directory + the in-process bus, or PostgreSQL + NATS), pages
// and webhook receivers on 127.0.0.1, and restarts on the same data as a process restart would. What a change
// announces reaches its webhook endpoints across stops of ours: the fan-out keeps its place in the event log and
// moves on only once the deliveries it made are written, and each delivery is a durable job.
import { afterAll, afterEach, beforeAll, describe, expect, test } from "bun:test";
import { sql, type Kysely } from "kysely";
import {
  articleHtml,
  eventually,
  hang,
  startPageServer,
  startTrove,
  startWebhookReceiver,
  type PageServer,
  type TestTrove,
  type WebhookReceiver,
} from "@trove/testing";

let trove: TestTrove;
let pages: PageServer;
const receivers: WebhookReceiver[] = [];
beforeAll(async () => {
  pages = startPageServer();
  trove = await startTrove(
    {
      TROVE_RATE_LIMIT: "100000",
      // Every save answers before its capture ends, whatever the machine's speed.
      TROVE_INGEST_WAIT_MS: "0",
      TROVE_WEBHOOK_RETRY_DELAYS: "0.05,0.05,0.05,0.05",
      // A stop gives running work half a second before it takes it back.
      TROVE_STOP_GRACE_MS: "500",
    },
    { persistent: true },
  );
});
afterAll(async () => {
  for (const r of receivers) r.stop();
  await trove.stop();
  pages.stop();
});
// Every endpoint hears of every item change of the account: each test's endpoints go when it ends.
afterEach(async () => {
  for (const w of (await api("/api/webhooks?limit=1000")).webhooks) await trove.api(`/api/webhooks/${w.id}`, { method: "DELETE" });
});

const api = async (path: string, init?: Parameters<TestTrove["api"]>[1]) => (await trove.api(path, init)).json();

function receiver(answer?: WebhookReceiver["answer"]): WebhookReceiver {
  const r = startWebhookReceiver(answer);
  receivers.push(r);
  return r;
}

async function endpoint(url: string, extra: Record<string, unknown> = {}): Promise<string> {
  const res = await trove.api("/api/webhooks", { method: "POST", json: { url, ...extra } });
  expect(res.status).toBe(200);
  return (await res.json()).endpoint.id;
}

let serial = 0;
async function save(extra: Record<string, unknown> = {}): Promise<any> {
  const res = await trove.api("/api/ingest", { method: "POST", json: { url: `https://durable-hooks.example.test/${serial++}`, html: articleHtml, ...extra } });
  expect(res.status).toBe(200);
  return res.json();
}

/** The item ids the receiver has heard of in deliveries of `type`. */
const heard = (r: WebhookReceiver, type: string): string[] => r.bodies().filter((b) => b.type === type).map((b) => b.data.itemId);

/**
 * Makes `delivery.deliveries` refuse every insert (SQLSTATE 25006, as a database gone read-only would) and counts
 * each refusal in a sequence, which no rollback undoes: a test can wait until a write was tried and refused.
 */
async function refuseDeliveries(db: Kysely<any>): Promise<{ refused(): Promise<number>; accept(): Promise<void> }> {
  await sql`create sequence delivery.test_refused_writes`.execute(db);
  await sql`
    create function delivery.test_refuse_counted() returns trigger language plpgsql as $$
    begin
      perform nextval('delivery.test_refused_writes');
      raise exception 'writes to %.% are refused (a fault the test turned on)', tg_table_schema, tg_table_name using errcode = '25006';
    end $$`.execute(db);
  await sql`create trigger test_refuse_counted before insert on delivery.deliveries
    for each statement execute function delivery.test_refuse_counted()`.execute(db);
  return {
    refused: async () => {
      const { rows } = await sql<{ n: string }>`select case when is_called then last_value else 0 end as n from delivery.test_refused_writes`.execute(trove.db);
      return Number(rows[0]!.n);
    },
    accept: async () => {
      await sql`drop function delivery.test_refuse_counted() cascade`.execute(trove.db);
      await sql`drop sequence delivery.test_refused_writes`.execute(trove.db);
    },
  };
}

describe("webhooks across restarts", () => {
  test("saves made while the delivery service was not running reach an endpoint made before", async () => {
    const r = receiver();
    await endpoint(r.url, { eventTypes: ["item.created"] });
    await trove.restart({ without: ["delivery"] });
    const a = (await save()).id;
    const b = (await save()).id;
    await trove.restart();
    await eventually(() => [a, b].every((id) => heard(r, "item.created").includes(id)), 60_000);
    expect(heard(r, "item.created").filter((id) => id === a || id === b).sort()).toEqual([a, b].sort());
  }, 120_000);

  test("a capture that ends while the Trove stops: after the restart the endpoint hears its content arrived", async () => {
    const r = receiver();
    await endpoint(r.url, { eventTypes: ["item.updated"] });
    const saved = (await trove.api("/api/ingest", { method: "POST", json: { url: `${pages.url}/held` } }).then((res) => res.json())) as any;
    expect(saved).toMatchObject({ ok: true, background: true });
    await pages.reached("/held");
    // The stop has begun when restart() returns its promise; the page answers while the Trove stops.
    const restarting = trove.restart();
    pages.release();
    await restarting;
    await eventually(async () => (await api(`/api/items/${saved.id}`)).contentAvailable === true, 60_000);
    await eventually(() => heard(r, "item.updated").includes(saved.id), 60_000);
  }, 120_000);

  test("an event whose deliveries could not be written before a restart is delivered after it", async () => {
    const r = receiver();
    const id = await endpoint(r.url, { eventTypes: ["item.created"] });
    const fault = await refuseDeliveries(trove.db);
    let itemId: string;
    try {
      itemId = (await save()).id;
      // The fan-out has met the refusal: whatever it holds in memory now, the restart throws away.
      await eventually(async () => (await fault.refused()) > 0, 30_000);
      await trove.restart();
    } finally {
      await fault.accept();
    }
    await eventually(() => heard(r, "item.created").includes(itemId), 60_000);
    const made = (await api(`/api/webhooks/${id}/deliveries`)).deliveries.filter((d: any) => d.type === "item.created");
    expect(made).toHaveLength(1);
  }, 120_000);

  test("an attempt under way when the Trove stops is given back and made after the restart, once recorded", async () => {
    const r = receiver((_, i) => (i === 0 ? hang() : new Response(null, { status: 204 })));
    // A type nothing in this file makes: an earlier test's capture ending meanwhile sends this endpoint nothing.
    const id = await endpoint(r.url, { eventTypes: ["item.deleted"] });
    const queued = (await api(`/api/webhooks/${id}/test`, { method: "POST" })).delivery;
    await eventually(() => r.hanging === 1, 30_000);
    await trove.restart();
    r.release();
    let done: any;
    await eventually(async () => (done = (await api(`/api/webhooks/${id}/deliveries`)).deliveries[0]).status === "succeeded", 60_000);
    expect(done).toMatchObject({ id: queued.id, attempts: 1, lastStatusCode: 204, nextAttemptAt: null });
    expect(done.attemptLog).toHaveLength(1);
    expect(r.received.map((g) => g.headers["webhook-id"])).toEqual([queued.id, queued.id]);
    // Nothing is left claimed by the process that stopped, and nothing waits.
    await eventually(async () => {
      const queue = (await api("/api/health")).services.delivery.queue;
      return queue !== undefined && queue.running === 0 && queue.due === 0 && queue.leaseExpired === 0;
    }, 30_000);
  }, 120_000);

  test("a delivery whose every run was cut short fails as interrupted, not sent once more", async () => {
    const r = receiver(() => hang());
    const id = await endpoint(r.url, { eventTypes: ["item.deleted"] });
    const queued = (await api(`/api/webhooks/${id}/test`, { method: "POST" })).delivery;
    await eventually(() => r.hanging === 1, 30_000);
    await trove.restart({ without: ["delivery"] });
    // As processes that died in the middle of its runs, ten times over, leave its job: claimed, by no one alive.
    await sql`update delivery.queue set state = 'running', attempts = max_attempts, lease_token = 'a process that died', lease_until = 0
      where id = ${queued.id}`.execute(trove.db);
    await trove.restart();
    let done: any;
    await eventually(async () => (done = (await api(`/api/webhooks/${id}/deliveries`)).deliveries[0]).status !== "pending", 30_000);
    expect(done).toMatchObject({ id: queued.id, status: "failed", lastError: "interrupted", attempts: 0, nextAttemptAt: null, attemptLog: [] });
    expect(r.received).toHaveLength(1);
    r.release();
  }, 120_000);
});
