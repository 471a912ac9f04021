// The admin server every Trove process serves (TROVE_ADMIN_PORT): /healthz, /readyz and /metrics, read as an
// orchestrator and a monitoring system would. Real: a whole Trove in this process with its admin server on a
// free port (PGlite + the in-process bus, or PostgreSQL + NATS), a webhook receiver, a feed and a page server on
// 127.0.0.1. The registry is the process's: other Troves of this file count in it too, so tests compare a value
// before and after their action, never an absolute count.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import {
  articleHtml,
  eventually,
  scrapeMetrics,
  startPageServer,
  startTrove,
  startWebhookReceiver,
  type Scrape,
  type TestTrove,
  type WebhookReceiver,
} from "@trove/testing";

let trove: TestTrove;
let admin: string;
const receivers: WebhookReceiver[] = [];
beforeAll(async () => {
  trove = await startTrove(
    {
      TROVE_RATE_LIMIT: "100000",
      TROVE_WEBHOOK_RETRY_DELAYS: "0.05,0.05,0.05,0.05",
      TROVE_WEBHOOK_TIMEOUT_MS: "1000",
    },
    { admin: true },
  );
  admin = trove.adminUrl!;
});
afterAll(async () => {
  for (const r of receivers) r.stop();
  await trove?.stop();
});

const api = async (path: string, init: { method?: string; json?: unknown } = {}) => {
  const res = await trove.api(path, { method: init.method ?? (init.json === undefined ? "GET" : "POST"), json: init.json });
  return { status: res.status, body: await res.json() };
};
const scrape = (): Promise<Scrape> => scrapeMetrics(admin);
/** Polls until the sample has grown past `before` (a counter of a background action). */
async function grows(name: string, labels: Record<string, string>, before: number, ms = 20_000): Promise<number> {
  let now = before;
  await eventually(async () => (now = (await scrape()).value(name, labels)) > before, ms);
  return now;
}

describe("health and readiness", () => {
  test("/healthz answers 200 while the process runs; /readyz 200 once its database and bus answer", async () => {
    expect(admin).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const health = await fetch(`${admin}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: "ok" });
    const ready = await fetch(`${admin}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: "ready", database: "ok", bus: "ok" });
  });

  test("the admin server answers only its three paths, and only to GET", async () => {
    const other = await fetch(`${admin}/api/items`);
    expect(other.status).toBe(404);
    expect(await other.json()).toMatchObject({ error: "not_found" });
    const post = await fetch(`${admin}/metrics`, { method: "POST" });
    expect(post.status).toBe(405);
    expect(await post.json()).toMatchObject({ error: "method_not_allowed" });
  });
});

describe("metrics", () => {
  test("/metrics is Prometheus text with every family: HTTP, bus, events, work queues, webhooks, sources, extraction, embedding, memory", async () => {
    const res = await fetch(`${admin}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toContain("text/plain");
    const { families } = await scrape();
    for (const family of [
      "trove_http_request_duration_seconds",
      "trove_bus_request_duration_seconds",
      "trove_event_consumer_lag_events",
      "trove_eventlog_position",
      "trove_job_queue_depth",
      "trove_job_claims_total",
      "trove_job_completions_total",
      "trove_job_failures_total",
      "trove_webhook_attempts_total",
      "trove_webhook_attempt_duration_seconds",
      "trove_webhook_deliveries_total",
      "trove_source_poll_duration_seconds",
      "trove_extraction_duration_seconds",
      "trove_embedding_duration_seconds",
      "trove_worker_pool_tasks",
      "process_resident_memory_bytes",
      "nodejs_heap_size_used_bytes",
      "process_cpu_seconds_total",
    ]) {
      expect({ family, declared: families.has(family) }).toEqual({ family, declared: true });
    }
  });

  test("HTTP requests count by method, route template and status; the bus request behind them by subject and outcome", async () => {
    const missing = { method: "GET", route: "/api/items/:id", status: "404" };
    const before = await scrape();
    const id = "0190aaaa-0000-7000-8000-00000000abcd";
    expect((await api(`/api/items/${id}`)).status).toBe(404);
    expect((await api("/api/items")).status).toBe(200);
    const after = await scrape();
    expect(after.value("trove_http_request_duration_seconds_count", missing)).toBe(before.value("trove_http_request_duration_seconds_count", missing) + 1);
    const listed = { method: "GET", route: "/api/items", status: "200" };
    expect(after.value("trove_http_request_duration_seconds_count", listed)).toBeGreaterThan(before.value("trove_http_request_duration_seconds_count", listed));
    // The duration lands in a bucket: the slowest bucket (+Inf) holds every request.
    expect(after.value("trove_http_request_duration_seconds_bucket", { ...missing, le: "+Inf" })).toBe(after.value("trove_http_request_duration_seconds_count", missing));
    // The raw path never becomes a label.
    expect(after.text).not.toContain(id);
    const notFound = { subject: "items.getItem", outcome: "not_found" };
    expect(after.value("trove_bus_request_duration_seconds_count", notFound)).toBeGreaterThan(before.value("trove_bus_request_duration_seconds_count", notFound));
    // A request refused before routing is still counted under its route.
    const unknownVersion = await trove.api("/api/items", { headers: { "service-api-version": "1999-01-01" } });
    expect(unknownVersion.status).toBe(400);
    const refused = (await scrape()).value("trove_http_request_duration_seconds_count", { method: "GET", route: "/api/items", status: "400" });
    expect(refused).toBeGreaterThan(before.value("trove_http_request_duration_seconds_count", { method: "GET", route: "/api/items", status: "400" }));
  });

  test("a save through the API is timed in the extraction histogram, and its event moves the event log's position", async () => {
    const extracted = { kind: "html", outcome: "ok" };
    const before = await scrape();
    const saved = await api("/api/ingest", { json: { url: "https://metrics.example.test/article", html: articleHtml } });
    expect(saved.status).toBe(200);
    expect(saved.body).toMatchObject({ ok: true, extracted: true });
    expect((await scrape()).value("trove_extraction_duration_seconds_count", extracted)).toBe(before.value("trove_extraction_duration_seconds_count", extracted) + 1);
    // Positions are given after the commit: the items stream's position grows past where it was.
    await grows("trove_eventlog_position", { stream: "items" }, before.value("trove_eventlog_position", { stream: "items" }));
    // Every consumer of the process reports its lag, and catches up with the save.
    const consumers = (await scrape()).series("trove_event_consumer_lag_events").map((s) => s.labels.consumer);
    expect(consumers).toEqual(expect.arrayContaining(["search-items", "delivery"]));
    await eventually(async () => (await scrape()).series("trove_event_consumer_lag_events").every((s) => s.value === 0), 20_000);
  });

  test("webhook attempts count by outcome and attempt, deliveries by outcome; their jobs' claims, completions and failures per queue", async () => {
    let answers = 0;
    // The first attempt fails (500), the second succeeds.
    const receiver = startWebhookReceiver(() => new Response(null, { status: answers++ === 0 ? 500 : 204 }));
    receivers.push(receiver);
    const queue = { queue: "delivery.webhook" };
    const before = await scrape();
    const created = await api("/api/webhooks", { json: { url: receiver.url, events: ["webhook.test"] } });
    expect(created.status).toBe(200);
    try {
      expect((await api(`/api/webhooks/${created.body.endpoint.id}/test`, { method: "POST" })).status).toBe(200);
      await grows("trove_webhook_deliveries_total", { outcome: "succeeded" }, before.value("trove_webhook_deliveries_total", { outcome: "succeeded" }));
      const after = await scrape();
      const grew = (name: string, labels: Record<string, string>) => after.value(name, labels) - before.value(name, labels);
      expect(grew("trove_webhook_attempts_total", { outcome: "http_status", attempt: "1" })).toBeGreaterThanOrEqual(1);
      expect(grew("trove_webhook_attempts_total", { outcome: "success", attempt: "2" })).toBeGreaterThanOrEqual(1);
      expect(grew("trove_webhook_attempt_duration_seconds_count", { outcome: "success" })).toBeGreaterThanOrEqual(1);
      expect(grew("trove_job_claims_total", queue)).toBeGreaterThanOrEqual(2);
      expect(grew("trove_job_failures_total", { ...queue, final: "false" })).toBeGreaterThanOrEqual(1);
      expect(grew("trove_job_completions_total", queue)).toBeGreaterThanOrEqual(1);
      // The queue's depth is read at the scrape, by state.
      const states = after.series("trove_job_queue_depth", queue).map((s) => s.labels.state);
      expect(states.sort()).toEqual(["due", "queued", "running"]);
    } finally {
      await api(`/api/webhooks/${created.body.endpoint.id}`, { method: "DELETE" });
    }
  });

  test("source polls count by type and outcome", async () => {
    const feed = Bun.serve({
      hostname: "127.0.0.1",
      port: 0,
      fetch: (req) =>
        new URL(req.url).pathname === "/feed.xml"
          ? new Response(
              `<?xml version="1.0"?><rss version="2.0"><channel><title>Metrics Feed</title><link>http://site.test/</link>` +
                `<item><title>One</title><link>http://site.test/one</link><guid>one</guid><description>first</description></item></channel></rss>`,
              { headers: { "content-type": "application/rss+xml" } },
            )
          : new Response("gone", { status: 500 }),
    });
    try {
      const ok = { type: "rss", outcome: "ok" };
      const before = await scrape();
      const created = await api("/api/sources", { json: { type: "rss", feedUrl: `http://127.0.0.1:${feed.port}/feed.xml` } });
      expect(created.status).toBe(200);
      expect(created.body.initialRun.status).toBe("ok");
      await grows("trove_source_poll_duration_seconds_count", ok, before.value("trove_source_poll_duration_seconds_count", ok));
      const failed = { type: "rss", outcome: "failed" };
      const broken = await api("/api/sources", { json: { type: "rss", feedUrl: `http://127.0.0.1:${feed.port}/broken.xml` } });
      expect(broken.status).toBe(200);
      expect(broken.body.initialRun.status).toBe("failed");
      await grows("trove_source_poll_duration_seconds_count", failed, before.value("trove_source_poll_duration_seconds_count", failed));
      for (const s of [created, broken]) await api(`/api/sources/${s.body.source.id}`, { method: "DELETE" });
    } finally {
      feed.stop(true);
    }
  });

  test("memory: the process's resident memory and heap in use, and the worker pool's tasks", async () => {
    const m = await scrape();
    expect(m.value("process_resident_memory_bytes")).toBeGreaterThan(0);
    expect(m.value("nodejs_heap_size_used_bytes")).toBeGreaterThan(0);
    expect(m.series("trove_worker_pool_tasks").map((s) => `${s.labels.pool} ${s.labels.state}`).sort()).toEqual(["embed queued", "embed running", "tasks queued", "tasks running"]);
    // Metrics Bun cannot fill are left out rather than shown as zeros.
    expect(m.families.has("nodejs_heap_space_size_used_bytes")).toBe(false);
    expect(m.families.has("nodejs_active_handles_total")).toBe(false);
  });
});

describe("stopping", () => {
  test("/readyz answers 503 from the moment a stop begins while in-flight requests finish; the admin server closes last", async () => {
    const pages = startPageServer();
    const stopping = await startTrove({ TROVE_INGEST_WAIT_MS: "20000" }, { admin: true });
    const adminUrl = stopping.adminUrl!;
    const get = (path: string) =>
      fetch(`${adminUrl}${path}`).then(
        async (r) => ({ status: r.status, body: await r.json() }),
        () => "refused" as const,
      );
    try {
      expect(await get("/readyz")).toEqual({ status: 200, body: { status: "ready", database: "ok", bus: "ok" } });
      // /held answers only when released: the save is in flight until the test says so, and so is the stop.
      const inFlight = stopping.api("/api/ingest", { method: "POST", json: { url: `${pages.url}/held` } });
      await pages.reached("/held");
      const stopped = stopping.stop();
      expect(await get("/readyz")).toEqual({ status: 503, body: { status: "stopping" } });
      expect(await get("/healthz")).toEqual({ status: 200, body: { status: "ok" } });
      pages.release();
      const res = await inFlight;
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject({ ok: true, extracted: true });
      await stopped;
      expect(await get("/healthz")).toBe("refused");
    } finally {
      pages.stop();
    }
  });

  test("an admin port in use stops the start with a message naming TROVE_ADMIN_PORT", async () => {
    const taken = new URL(admin).port;
    const err = await startTrove({ TROVE_ADMIN_PORT: taken }, { admin: true }).then(
      async (t) => {
        await t.stop();
        return null;
      },
      (e: unknown) => e as Error,
    );
    expect(err?.message).toContain(`127.0.0.1:${taken} is in use`);
    expect(err?.message).toContain("TROVE_ADMIN_PORT");
    // The Trove that holds the port goes on answering.
    expect((await fetch(`${admin}/healthz`)).status).toBe(200);
  });
});
