// The admin server of real processes, on the port TROVE_ADMIN_PORT names: the embedded deployment
// (`bun run trove.ts` on PGlite) and, when PostgreSQL and NATS are at hand, one service's own process
// (`bun run services/delivery/main.ts`). Read over HTTP as an orchestrator's probes and a Prometheus scrape would.
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Subprocess } from "bun";
import {
  backingServices,
  eventually,
  freePort,
  processEnv,
  repoRoot,
  scrapeMetrics,
  seedAccounts,
  spawnBun,
  spawnEmbedded,
  testStackDefaults,
  type Backing,
} from "@trove/testing";

const get = (url: string) =>
  fetch(url).then(
    async (r) => ({ status: r.status, body: await r.json() }),
    () => "refused" as const,
  );

/** Waits until /readyz answers 200, failing at once if the process exits first. */
async function ready(proc: Subprocess, adminUrl: string): Promise<void> {
  let exited = false;
  void proc.exited.then(() => (exited = true));
  await eventually(async () => {
    if (exited) throw new Error(`the process exited with ${proc.exitCode} before it was ready`);
    const r = await get(`${adminUrl}/readyz`);
    return r !== "refused" && r.status === 200;
  }, 60_000);
}

describe("the embedded deployment (bun run trove.ts)", () => {
  test("serves /healthz, /readyz and /metrics on TROVE_ADMIN_PORT; a second process on that port does not start", async () => {
    const adminPort = await freePort();
    const adminUrl = `http://127.0.0.1:${adminPort}`;
    const trove = await spawnEmbedded({ TROVE_ADMIN_PORT: String(adminPort) });
    try {
      expect(await get(`${adminUrl}/healthz`)).toEqual({ status: 200, body: { status: "ok" } });
      await eventually(async () => JSON.stringify(await get(`${adminUrl}/readyz`)) === JSON.stringify({ status: 200, body: { status: "ready", database: "ok", bus: "ok" } }), 30_000);
      expect((await trove.api("/api/items")).status).toBe(200);
      const m = await scrapeMetrics(adminUrl);
      expect(m.value("trove_http_request_duration_seconds_count", { method: "GET", route: "/api/items", status: "200" })).toBeGreaterThanOrEqual(1);
      expect(m.value("trove_bus_request_duration_seconds_count", { subject: "items.listItems", outcome: "ok" })).toBeGreaterThanOrEqual(1);
      expect(m.series("trove_job_queue_depth", { queue: "delivery.webhook" }).length).toBe(3);
      expect(m.value("process_resident_memory_bytes")).toBeGreaterThan(0);

      // Another Trove told to use the same admin port stops at once, saying why.
      const dataDir = mkdtempSync(join(tmpdir(), "trove-admin-"));
      try {
        const second = Bun.spawn(["bun", "run", "trove.ts"], {
          cwd: repoRoot,
          env: {
            PATH: process.env.PATH ?? "",
            HOME: process.env.HOME ?? "/tmp",
            TROVE_DATA_DIR: dataDir,
            PORT: String(await freePort()),
            TROVE_SEED_ACCOUNTS: seedAccounts,
            LOG_LEVEL: "warn",
            ...testStackDefaults,
            TROVE_ADMIN_PORT: String(adminPort),
          },
          stdout: "ignore",
          stderr: "pipe",
        });
        expect(await second.exited).toBe(1);
        const stderr = await new Response(second.stderr).text();
        expect(stderr).toContain(`127.0.0.1:${adminPort} is in use`);
        expect(stderr).toContain("TROVE_ADMIN_PORT");
      } finally {
        rmSync(dataDir, { recursive: true, force: true });
      }
      expect((await get(`${adminUrl}/healthz`)) !== "refused").toBe(true);
    } finally {
      await trove.stop();
    }
    // The admin server closed with the process.
    expect(await get(`${adminUrl}/healthz`)).toBe("refused");
  });
});

const backing = await backingServices();
if ("skip" in backing) {
  console.log(`SKIPPED a service's own process: ${backing.skip}`);
  describe.skip(`a service's own process (skipped: ${backing.skip})`, () => test("serves the admin endpoints", () => {}));
} else {
  const b: Backing = backing;
  afterAll(() => b.stop());

  describe(`a service's own process over PostgreSQL and NATS (${b.how})`, () => {
    test("the delivery service serves /healthz, /readyz and /metrics with its queue and consumer; SIGTERM stops it cleanly", async () => {
      const adminPort = await freePort();
      const adminUrl = `http://127.0.0.1:${adminPort}`;
      const proc = spawnBun("services/delivery/main.ts", processEnv(b, await freePort(), { TROVE_ADMIN_PORT: String(adminPort) }));
      try {
        await ready(proc, adminUrl);
        expect(await get(`${adminUrl}/healthz`)).toEqual({ status: 200, body: { status: "ok" } });
        expect(await get(`${adminUrl}/readyz`)).toEqual({ status: 200, body: { status: "ready", database: "ok", bus: "ok" } });
        const m = await scrapeMetrics(adminUrl);
        expect(m.series("trove_job_queue_depth", { queue: "delivery.webhook" }).map((s) => s.labels.state).sort()).toEqual(["due", "queued", "running"]);
        expect(m.series("trove_event_consumer_lag_events").map((s) => s.labels.consumer)).toContain("delivery");
        expect(m.value("process_resident_memory_bytes")).toBeGreaterThan(0);
      } finally {
        proc.kill("SIGTERM");
      }
      expect(await proc.exited).toBe(0);
      expect(await get(`${adminUrl}/healthz`)).toBe("refused");
    });
  });
}
