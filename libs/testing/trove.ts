// A whole Trove in this process for service tests: every service, the gateway on a free port, and two seeded
// accounts. On the embedded stack: a fresh PGlite database (from a migrated template) and the in-process bus;
// on postgres-nats: a scratch PostgreSQL database and a fresh NATS namespace. Names resolve only to loopback.
// What is real: all of it; nothing is mocked.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Kysely } from "kysely";
import type { BlobStore } from "@trove/blobs";
import { dropNatsNamespace, type Bus } from "@trove/bus";
import type { ServiceName } from "@trove/contracts";
import { parseConfig } from "@trove/config";
import { startHost, type Runtime } from "@trove/host";
import { createLogger } from "@trove/log";
import { allServices } from "../../services.ts";
import { freshPglite } from "./pglite.ts";
import { createScratchDatabase, dropScratchDatabase } from "./postgres.ts";
import { loopbackResolver, testStack, testStackDefaults, type TestStack } from "./stack.ts";

export const aliceKey = "test-key-alice-0123456789";
export const bobKey = "test-key-bob-0123456789ab";

export const seedAccounts = JSON.stringify([
  { email: "alice@example.test", apiKey: aliceKey },
  { email: "bob@example.test", apiKey: bobKey, plan: "free", linkLimit: 3, limitScope: "billing_cycle" },
]);

/** A Response whose JSON tests read freely. */
export type ApiResponse = Omit<Response, "json"> & { json(): Promise<any> };

export interface TestTrove {
  url: string;
  stack: TestStack;
  /** The database, to read what has no HTTP face yet (the event outbox) and to set up large fixtures. */
  db: Kysely<any>;
  /** Every log line written so far, parsed. */
  logs: Record<string, unknown>[];
  /** The blob store the services write uploads to (files, or the NATS Object Store). */
  blobs: BlobStore;
  /** The bus the services share, to watch what they publish (the item events). */
  bus: Bus;
  /** The host's runtime (config, bus, database, logger), to start another replica of a service on it. */
  runtime: Runtime;
  /** Host names the services asked to resolve (none of them reached DNS). */
  lookups: string[];
  /** fetch against the gateway, as alice unless `key` says otherwise (null: no credential). */
  api(path: string, init?: RequestInit & { key?: string | null; json?: unknown }): Promise<ApiResponse>;
  stop(): Promise<void>;
}

export interface StartTroveOptions {
  /**
   * Services not to start (say, to show that another catches up once it runs): start one later on the shared
   * runtime with `migrateModules([svc], trove.runtime.database)` then `svc.start(trove.runtime)`.
   */
  without?: ServiceName[];
}

export async function startTrove(env: Record<string, string> = {}, opts: StartTroveOptions = {}): Promise<TestTrove> {
  const stack = testStack();
  const dataDir = mkdtempSync(join(tmpdir(), "trove-test-"));
  const prefix = `t${crypto.randomUUID().slice(0, 8)}`;
  const distributed =
    stack === "postgres-nats"
      ? { DATABASE_URL: await createScratchDatabase("svc"), NATS_URL: process.env.NATS_URL!, TROVE_BUS_PREFIX: prefix }
      : {};
  const config = parseConfig({
    PORT: "0",
    TROVE_DATA_DIR: dataDir,
    LOG_LEVEL: "info",
    TROVE_SEED_ACCOUNTS: seedAccounts,
    TROVE_ALLOW_PRIVATE_NETWORK: "1",
    // Every test checks every reply against the contract's schemas.
    TROVE_VALIDATE_RESPONSES: "1",
    ...testStackDefaults,
    ...distributed,
    ...env,
  });
  const logs: Record<string, unknown>[] = [];
  const log = createLogger(config.logLevel, {}, {
    write(line: string) {
      logs.push(JSON.parse(line));
    },
  });
  const lookups: string[] = [];
  const host = await startHost(opts.without ? allServices.filter((m) => !opts.without!.includes(m.name)) : allServices, {
    config,
    log,
    database: stack === "embedded" ? await freshPglite() : undefined,
    resolver: loopbackResolver(lookups),
  });
  const url = host.url!;
  return {
    url,
    stack,
    db: host.runtime.database.db,
    logs,
    lookups,
    blobs: host.runtime.blobs,
    bus: host.runtime.bus,
    runtime: host.runtime,
    api: (path, init = {}) => {
      const { key = aliceKey, json, ...rest } = init;
      const headers = new Headers(rest.headers);
      if (key !== null) headers.set("authorization", `Bearer ${key}`);
      if (json !== undefined) headers.set("content-type", "application/json");
      return fetch(url + path, { ...rest, headers, body: json !== undefined ? JSON.stringify(json) : rest.body });
    },
    stop: async () => {
      await host.stop();
      rmSync(dataDir, { recursive: true, force: true });
      if (config.natsUrl) await dropNatsNamespace(config.natsUrl, config.busPrefix).catch(() => {});
      if (config.databaseUrl && distributed.DATABASE_URL) await dropScratchDatabase(config.databaseUrl).catch(() => {});
    },
  };
}

/** Polls until check() holds (or fails the test after `ms`): for effects that land after a response. */
export async function eventually(check: () => boolean | Promise<boolean>, ms = 5_000): Promise<void> {
  const until = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > until) throw new Error(`condition not met within ${ms} ms`);
    await Bun.sleep(10);
  }
}
