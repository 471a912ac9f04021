// The distributed topology as `bun run cluster -- --replicas 2` runs it (libs/cluster): NATS with the deploy
// configuration (a user per service, deploy/nats/nats.conf), two processes of every service over PostgreSQL, two
// gateways behind a round-robin proxy. What a user and an operator see: answers through the proxy and from each
// gateway, the limits' headers, and the processes' own /metrics (summed over the replicas, so "once" means once
// in the whole topology, whichever replica did it).
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { launchCluster, natsServerBinary, type Cluster } from "@trove/cluster";
import { aliceKey, articleHtml, createScratchDatabase, dropScratchDatabase, eventually, seedAccounts, startWebhookReceiver, testStackDefaults } from "@trove/testing";
import { feedServer, rss2 } from "../../services/sources/test/feeds.ts";

const skip = !process.env.DATABASE_URL ? "DATABASE_URL is not set" : !natsServerBinary() ? "nats-server is not installed" : undefined;

const call = async (url: string, path: string, init: { key?: string | null; json?: unknown; method?: string } = {}) => {
  const { key = aliceKey, json } = init;
  const headers = new Headers();
  if (key) headers.set("authorization", `Bearer ${key}`);
  if (json !== undefined) headers.set("content-type", "application/json");
  const res = await fetch(url + path, { method: init.method ?? (json === undefined ? "GET" : "POST"), headers, body: json !== undefined ? JSON.stringify(json) : undefined });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? (JSON.parse(text) as any) : null };
};

/** A counter's value summed over every process of a service (all label sets matching `labels`). */
async function metricSum(cluster: Cluster, service: string, name: string, labels: Record<string, string> = {}): Promise<number> {
  let sum = 0;
  for (const p of cluster.processes.values()) {
    if (p.service !== service) continue;
    const text = await (await fetch(`${p.adminUrl}/metrics`)).text();
    for (const line of text.split("\n")) {
      const m = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
      if (!m || m[1] !== name) continue;
      const set = Object.fromEntries([...(m[2] ?? "").matchAll(/(\w+)="([^"]*)"/g)].map((x) => [x[1], x[2]]));
      if (Object.entries(labels).every(([k, v]) => set[k] === v)) sum += Number(m[3]);
    }
  }
  return sum;
}

if (skip) {
  console.log(`SKIPPED cluster suite: ${skip}`);
  describe.skip(`two of every service (skipped: ${skip})`, () => test("every cluster test", () => {}));
} else {
  let cluster: Cluster;
  let databaseUrl: string;
  const feeds = feedServer();
  beforeAll(async () => {
    databaseUrl = await createScratchDatabase("cluster");
    cluster = await launchCluster({
      databaseUrl,
      replicas: 2,
      output: "inherit",
      env: { ...testStackDefaults, TROVE_SEED_ACCOUNTS: seedAccounts, TROVE_ALLOW_PRIVATE_NETWORK: "1", LOG_LEVEL: "warn", TROVE_SOURCES_TICK_MS: "200" },
    });
  }, 300_000);
  afterAll(async () => {
    await cluster?.stop();
    feeds.stop();
    if (databaseUrl) await dropScratchDatabase(databaseUrl).catch(() => {});
  });
  const gateways = () => [...cluster.processes.values()].filter((p) => p.service === "gateway").map((p) => p.url!);

  describe("two of every service, NATS with the deploy configuration", () => {
    test("every process is ready and observable; health through the proxy reports every service", async () => {
      expect(cluster.processes.size).toBe(12);
      for (const p of cluster.processes.values()) {
        expect((await fetch(`${p.adminUrl}/healthz`)).status).toBe(200);
        expect((await fetch(`${p.adminUrl}/readyz`)).status).toBe(200);
        expect(await (await fetch(`${p.adminUrl}/metrics`)).text()).toContain("process_resident_memory_bytes");
      }
      const { status, body } = await call(cluster.url, "/api/health", { key: null });
      expect(status).toBe(200);
      expect(body).toMatchObject({ status: "ok", deployment: "distributed", bus: { kind: "nats", ok: true } });
    });

    test("requests through the proxy: save, read, search, a note linking the item, a tag's removal read back", async () => {
      const saved = await call(cluster.url, "/api/ingest", { json: { url: "https://cluster.example.invalid/a", html: articleHtml } });
      expect(saved.status).toBe(200);
      const id = saved.body.id as string;
      // Alternate requests land on alternate gateways: each reads what the other's write made.
      for (let i = 0; i < 4; i++) expect((await call(cluster.url, `/api/items/${id}`)).body.id).toBe(id);
      await eventually(async () => (await call(cluster.url, "/api/items/search?q=tokenize")).body.items?.some((i: any) => i.id === id), 30_000);
      expect((await call(cluster.url, "/api/tags", { json: { name: "Cluster" } })).status).toBe(200);
      const note = await call(cluster.url, "/api/notes", { json: { title: "Cluster note", bodyMarkdown: "On parsing.", tags: ["cluster"] } });
      expect(note.status).toBe(200);
      const noteId = note.body.note.id as string;
      // The notes process asks an items process whether the item is the caller's.
      expect((await call(cluster.url, `/api/notes/${noteId}/item-links`, { json: { itemId: id } })).status).toBe(200);
      expect((await call(cluster.url, "/api/tags/cluster", { method: "DELETE" })).status).toBe(200);
      // The answered removal is read back from either gateway at once.
      for (const g of gateways()) expect((await call(g, `/api/notes/${noteId}`)).body.note.tags).toEqual([]);
    });

    test("one key's rate limit holds across both gateways", async () => {
      const [a, b] = gateways();
      const made = await call(cluster.url, "/api/connected-clients", { json: { name: "rate", access: "read_only" } });
      const key = made.body.apiKey as string;
      const first = await call(a!, "/api/me", { key });
      const limit = Number(/q=(\d+)/.exec(first.headers.get("ratelimit-policy") ?? "")?.[1]);
      expect(limit).toBeGreaterThan(0);
      let remaining = Number(/r=(\d+)/.exec(first.headers.get("ratelimit") ?? "")?.[1]);
      expect(remaining).toBe(limit - 1);
      // Each answer from either gateway counts against the same budget.
      for (let i = 1; i < limit; i++) {
        const r = await call(i % 2 ? b! : a!, "/api/me", { key });
        expect(r.status).toBe(200);
        const now = Number(/r=(\d+)/.exec(r.headers.get("ratelimit") ?? "")?.[1]);
        expect(now).toBe(remaining - 1);
        remaining = now;
      }
      for (const g of [a!, b!]) {
        const refused = await call(g, "/api/me", { key });
        expect(refused.status).toBe(429);
        expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
      }
    });

    test("a key revoked through one gateway is refused by the other at once", async () => {
      const [a, b] = gateways();
      const made = await call(a!, "/api/connected-clients", { json: { name: "revoked" } });
      const key = made.body.apiKey as string;
      // The other gateway has the key in its cache.
      expect((await call(b!, "/api/me", { key })).status).toBe(200);
      expect((await call(a!, "/api/connected-clients/revoke", { json: { id: made.body.client.id } })).status).toBe(200);
      expect((await call(b!, "/api/me", { key })).status).toBe(401);
      expect((await call(a!, "/api/me", { key })).status).toBe(401);
    });

    test("a job runs once: an export is made by one exports process", async () => {
      const before = await metricSum(cluster, "exports", "trove_job_claims_total", { queue: "exports.export" });
      const started = await call(cluster.url, "/api/exports", { json: { format: "json" } });
      expect(started.status).toBe(200);
      const jobId = started.body.export.id;
      await eventually(async () => (await call(cluster.url, "/api/exports")).body.exports.find((j: any) => j.id === jobId)?.status === "completed", 60_000);
      expect(await metricSum(cluster, "exports", "trove_job_claims_total", { queue: "exports.export" })).toBe(before + 1);
    });

    test("a webhook delivery runs once: each event reaches the receiver one time", async () => {
      const got: string[] = [];
      const receiver = startWebhookReceiver((w) => {
        got.push(w.headers["webhook-id"]!);
        return new Response(null, { status: 204 });
      });
      try {
        const hook = await call(cluster.url, "/api/webhooks", { json: { url: `${receiver.url}/hook`, eventTypes: ["item.created"] } });
        expect(hook.status).toBe(200);
        for (let i = 0; i < 6; i++) expect((await call(cluster.url, "/api/ingest", { json: { url: `https://cluster.example.invalid/hook/${i}`, html: articleHtml } })).status).toBe(200);
        const endpoint = hook.body.endpoint.id;
        await eventually(async () => (await call(cluster.url, `/api/webhooks/${endpoint}/deliveries?status=succeeded`)).body.count === 6, 60_000);
        expect(got.length).toBe(6);
        expect(new Set(got).size).toBe(6);
      } finally {
        receiver.stop();
      }
    });

    test("a source poll runs once: made due again, the feed is fetched one more time", async () => {
      const url = feeds.route("/cluster.xml", () => new Response(rss2("Cluster feed", [{ id: "c1", title: "Cluster entry", link: "http://site.test/cluster/1", at: 1_700_000_000 }]), { headers: { "content-type": "application/rss+xml" } }));
      const created = await call(cluster.url, "/api/sources", { json: { type: "rss", feedUrl: url, backfillItems: 1 } });
      expect(created.status).toBe(200);
      expect(feeds.hits("/cluster.xml")).toBe(1);
      const id = created.body.source.id;
      await call(cluster.url, `/api/sources/${id}/pause`, { json: {} });
      await call(cluster.url, `/api/sources/${id}/resume`, { json: {} });
      // A feed is fetched only by a running poll: once the resumed source has its run and no poll is running or
      // due, the count is final.
      const runs = async () => {
        const events = (await call(cluster.url, `/api/sources/${id}/events?limit=50`)).body.events as { type: string }[];
        return events.slice(0, events.findIndex((e) => e.type === "resumed")).filter((e) => e.type === "run").length;
      };
      await eventually(async () => (await runs()) >= 1, 60_000);
      await eventually(async () => {
        const queue = (await call(cluster.url, "/api/health", { key: null })).body.services?.sources?.queue;
        return queue !== undefined && (queue.running ?? 0) === 0;
      }, 60_000);
      expect(await runs()).toBe(1);
      expect(feeds.hits("/cluster.xml")).toBe(2);
      expect((await call(cluster.url, `/api/sources/${id}`)).body.source.itemCount).toBe(1);
    });
  });
}
