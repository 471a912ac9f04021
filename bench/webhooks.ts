// `bun run bench:webhooks`: signed webhook deliveries per second to a loopback receiver (bench/webhook-receiver.ts,
// its own process, verifying every signature with the standardwebhooks library), in the embedded deployment (every
// service in this process, PGlite + in-process bus) and the distributed one (every service its own process over
// PostgreSQL + NATS). The webhook queue is what is measured: BENCH_DELIVERIES deliveries (default 5000) and their
// jobs are written in SQL to paused endpoints (as a pause holds them), the endpoints are resumed through the API,
// and the clock runs until every delivery is recorded as succeeded. Run for 1 endpoint (at most 16 attempts in
// flight to it) and for 8 endpoints. Prints a Markdown table for docs/benchmarks.md.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "kysely";
import { parseConfig } from "@trove/config";
import { openDatabase } from "@trove/db";
import { startHost } from "@trove/host";
import { createLogger } from "@trove/log";
import { aliceKey, backingServices, seedAccounts, type Backing } from "@trove/testing";
import { allServices } from "../services.ts";
import { maxRuns, webhookQueue } from "../services/delivery/webhook-job.ts";
import type { Db } from "./sql.ts";
import { startDistributed } from "./topology.ts";

process.env.DATABASE_URL ??= "postgres://postgres@127.0.0.1:5432/postgres";
process.env.NATS_URL ??= "nats://127.0.0.1:4222";
const total = Number(process.env.BENCH_DELIVERIES ?? 5000);
const loadAtStart = (await Bun.file("/proc/loadavg").text()).split(" ").slice(0, 3).join(" ");

// ---- the receiver ------------------------------------------------------------------------------------------

const receiverProc = Bun.spawn(["bun", "run", join(import.meta.dir, "webhook-receiver.ts")], { stdout: "pipe", stderr: "inherit" });
const receiverUrl = await (async () => {
  const reader = receiverProc.stdout.getReader();
  let text = "";
  while (!text.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) throw new Error("the receiver exited before printing its port");
    text += new TextDecoder().decode(value);
  }
  reader.releaseLock();
  return `http://127.0.0.1:${Number(text.trim())}`;
})();
const receiverStats = async (): Promise<{ verified: number; rejected: number }> => (await fetch(`${receiverUrl}/stats`)).json() as never;

// ---- one run -----------------------------------------------------------------------------------------------

interface Row {
  deployment: string;
  endpoints: number;
  deliveries: number;
  seconds: number;
  perSecond: number;
  rejected: number;
}

const call = async (base: string, path: string, method: string, json?: unknown) => {
  const res = await fetch(base + path, {
    method,
    headers: { authorization: `Bearer ${aliceKey}`, "content-type": "application/json" },
    body: json === undefined ? undefined : JSON.stringify(json),
  });
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
  return res.json() as Promise<any>;
};

async function run(deployment: string, base: string, db: Db, endpointCount: number): Promise<Row> {
  const tag = crypto.randomUUID().slice(0, 8);
  const endpoints: { id: string; accountId: string }[] = [];
  const secrets: Record<string, string> = {};
  for (let i = 0; i < endpointCount; i++) {
    const path = `/bench/${tag}/${i}`;
    const { endpoint, secret } = await call(base, "/api/webhooks", "POST", { url: receiverUrl + path, name: `bench ${i}` });
    secrets[path] = secret;
    await call(base, `/api/webhooks/${endpoint.id}`, "PATCH", { status: "paused" });
    const row = await db.selectFrom("delivery.endpoints").select("account_id").where("id", "=", endpoint.id).executeTakeFirstOrThrow();
    endpoints.push({ id: endpoint.id, accountId: row.account_id as string });
  }
  await fetch(`${receiverUrl}/secrets`, { method: "POST", body: JSON.stringify(secrets) });
  // Bodies as the fan-out writes them: an item.tagged event with its scopes, about 450 bytes.
  const now = Date.now();
  const rows = Array.from({ length: total }, (_, i) => {
    const e = endpoints[i % endpoints.length]!;
    const id = Bun.randomUUIDv7();
    const eventId = Bun.randomUUIDv7();
    const scope = { status: "stashed", tagSlugs: ["reading", "bench"], collectionIds: [] };
    const body = JSON.stringify({
      id,
      type: "item.tagged",
      createdAt: now,
      accountId: e.accountId,
      data: { eventId, itemId: Bun.randomUUIDv7(), beforeScope: { ...scope, tagSlugs: ["reading"] }, afterScope: scope, payload: { changedFields: ["tags"], tagSlugsAdded: ["bench"] } },
    });
    return { id, account_id: e.accountId, endpoint_id: e.id, event_id: eventId, type: "item.tagged", body, status: "pending", next_attempt_at: now, created_at: now };
  });
  // Each delivery with its job, as the fan-out makes them: the webhook queue's, in its endpoint's (paused) group.
  const jobs = rows.map((r) => ({
    id: r.id,
    queue: webhookQueue,
    group_key: r.endpoint_id,
    account_id: r.account_id,
    payload: JSON.stringify({ endpointId: r.endpoint_id }),
    state: "queued",
    attempts: 0,
    max_attempts: maxRuns,
    run_at: now,
    created_at: now,
    updated_at: now,
  }));
  for (let i = 0; i < rows.length; i += 1000) {
    await db.insertInto("delivery.deliveries").values(rows.slice(i, i + 1000)).execute();
    await db.insertInto("delivery.queue").values(jobs.slice(i, i + 1000)).execute();
  }
  const before = await receiverStats();
  const started = performance.now();
  await Promise.all(endpoints.map((e) => call(base, `/api/webhooks/${e.id}`, "PATCH", { status: "enabled" })));
  const ids = endpoints.map((e) => e.id);
  // The receiver's count first (its own process), then the database, so that polling does not slow the run down.
  while ((await receiverStats()).verified - before.verified < total) await Bun.sleep(20);
  for (;;) {
    const { rows: [left] } = await sql<{ n: number }>`select count(*)::int4 as n from delivery.deliveries where endpoint_id = any(${ids}::text[]) and status <> 'succeeded'`.execute(db);
    if (left!.n === 0) break;
    await Bun.sleep(20);
  }
  const seconds = (performance.now() - started) / 1000;
  const after = await receiverStats();
  for (const e of endpoints) await call(base, `/api/webhooks/${e.id}`, "DELETE");
  return { deployment, endpoints: endpointCount, deliveries: total, seconds, perSecond: total / seconds, rejected: after.rejected - before.rejected };
}

// ---- the deployments ---------------------------------------------------------------------------------------

const results: Row[] = [];
const env = { TROVE_SEED_ACCOUNTS: seedAccounts, TROVE_ALLOW_PRIVATE_NETWORK: "1", TROVE_RATE_LIMIT: "1000000", LOG_LEVEL: "warn" };

{
  const dataDir = mkdtempSync(join(tmpdir(), "trove-bench-webhooks-"));
  const config = parseConfig({ ...env, PORT: "0", TROVE_DATA_DIR: dataDir });
  const host = await startHost(allServices, { config, log: createLogger("warn") });
  try {
    for (const n of [1, 8]) results.push(await run("embedded", host.url!, host.runtime.database.db, n));
  } finally {
    await host.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const backing = await backingServices();
if ("skip" in backing) console.log(`distributed: skipped (${backing.skip})`);
else {
  const b: Backing = backing;
  const topo = await startDistributed(b, { TROVE_RATE_LIMIT: "1000000", LOG_LEVEL: "warn" });
  const database = await openDatabase({ databaseUrl: b.databaseUrl, poolSize: 2 });
  try {
    for (const n of [1, 8]) results.push(await run("distributed", topo.url, database.db, n));
  } finally {
    await database.close();
    await topo.stop();
    await b.stop();
  }
}
receiverProc.kill();

console.log(`\nload average at start: ${loadAtStart}; ${total} deliveries per run\n`);
console.log("| deployment | endpoints | deliveries | seconds | deliveries/s | bad signatures |");
console.log("|---|---:|---:|---:|---:|---:|");
for (const r of results) {
  console.log(`| ${r.deployment} | ${r.endpoints} | ${r.deliveries} | ${r.seconds.toFixed(2)} | ${Math.round(r.perSecond)} | ${r.rejected} |`);
}
