// Real: the host (startHost) on the test stack: PGlite and the in-process bus, or with TROVE_TEST_STACK=postgres-nats
// a scratch PostgreSQL database and NATS. Two small service modules stand in for real ones, so the test can see
// when each starts and stops; the log is the host's.
import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { dropNatsNamespace } from "@trove/bus/nats.ts";
import { parseConfig } from "@trove/config";
import { inTransaction } from "@trove/db";
import { startHost, type ServiceModule } from "@trove/host";
import { createLogger } from "@trove/log";
import { freshPglite } from "@trove/testing/pglite.ts";
import { createScratchDatabase, dropScratchDatabase } from "@trove/testing/postgres.ts";
import { testStack } from "@trove/testing/stack.ts";
import { until } from "./contract.ts";

const stack = testStack();
const dataDir = mkdtempSync(join(tmpdir(), "trove-eventlog-host-"));
const prefix = `t${crypto.randomUUID().slice(0, 8)}`;
const cleanups: (() => Promise<unknown>)[] = [];
afterAll(async () => {
  for (const c of cleanups) await c().catch(() => {});
  rmSync(dataDir, { recursive: true, force: true });
});

async function configFor() {
  const distributed =
    stack === "postgres-nats" ? { DATABASE_URL: await createScratchDatabase("eventlog_host"), NATS_URL: process.env.NATS_URL!, TROVE_BUS_PREFIX: prefix } : {};
  if (distributed.DATABASE_URL) {
    const url = distributed.DATABASE_URL;
    cleanups.push(() => dropScratchDatabase(url), () => dropNatsNamespace(process.env.NATS_URL!, prefix));
  }
  return parseConfig({ PORT: "0", TROVE_DATA_DIR: dataDir, LOG_LEVEL: "warn", TROVE_SEMANTIC: "off", TROVE_SMTP_PORT: "0", ...distributed });
}

test("the host hands services its log, starts their consumers once every service runs, reports their lag; a stop ends intake, then the consumers (batch in hand finished), then the services", async () => {
  const order: string[] = [];
  let laterStarted = false;
  const firstBatch = Promise.withResolvers<boolean>();
  const held = Promise.withResolvers<void>();
  const release = Promise.withResolvers<void>();
  const filter = `hosttest.${prefix}.>`;

  const consuming: ServiceModule = {
    name: "items",
    async start(rt) {
      await rt.events.consume({ name: `${prefix}-host`, filter }, async (events) => {
        if (events.some((e) => e.subject.endsWith(".first"))) firstBatch.resolve(laterStarted);
        if (events.some((e) => e.subject.endsWith(".held"))) {
          held.resolve();
          await release.promise;
          order.push("batch done");
        }
      });
      // Recorded during this service's start: handed over only once the host has started every service.
      await inTransaction(rt.database.db, (uow) =>
        rt.events.record(uow, { stream: "hosttest", subject: `hosttest.${prefix}.first`, accountId: "a", data: {} }),
      );
      return { stopIntake: async () => void order.push("items intake stopped"), stop: async () => void order.push("items stopped") };
    },
  };
  const later: ServiceModule = {
    name: "notes",
    async start() {
      laterStarted = true;
      return { stop: async () => void order.push("notes stopped") };
    },
  };

  const config = await configFor();
  const host = await startHost([consuming, later], {
    config,
    log: createLogger("silent"),
    database: stack === "embedded" ? await freshPglite() : undefined,
  });
  let stopped = false;
  try {
    expect(await firstBatch.promise).toBe(true);
    const health = (await host.runtime.bus.request("items.health", {})) as { events?: { lag: number } };
    expect(typeof health.events?.lag).toBe("number");
    expect(await host.runtime.bus.request("notes.health", {})).not.toHaveProperty("events");

    await inTransaction(host.runtime.database.db, (uow) =>
      host.runtime.events.record(uow, { stream: "hosttest", subject: `hosttest.${prefix}.held`, accountId: "a", data: {} }),
    );
    await held.promise;
    const stopping = host.stop().then(() => order.push("host stopped"));
    // Intake stops first; the consumer's batch in hand is waited for before any service's own stop.
    await until(() => order.includes("items intake stopped"), "the intake's stop");
    for (let i = 0; i < 20; i++) await new Promise((resolve) => setImmediate(resolve));
    expect(order).toEqual(["items intake stopped"]);
    release.resolve();
    await stopping;
    stopped = true;
    expect(order).toEqual(["items intake stopped", "batch done", "notes stopped", "items stopped", "host stopped"]);
  } finally {
    release.resolve();
    if (!stopped) await host.stop();
  }
});
