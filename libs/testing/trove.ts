// A whole Trove in this process for service tests: every service, the gateway on a free port, and two seeded
// accounts. On the embedded stack: a fresh PGlite database (from a migrated template) and the in-process bus;
// on postgres-nats: a scratch PostgreSQL database and a fresh NATS namespace. Names resolve only to loopback.
// What is real: all of it; nothing is mocked. A Trove can be restarted on the same data (`restart()`), as a process
// restart would; the embedded stack then keeps its PGlite database in the data directory (`persistent`).
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Kysely } from "kysely";
import type { BlobStore } from "@trove/blobs";
import { type Bus } from "@trove/bus";
import { dropNatsNamespace } from "@trove/bus/nats.ts";
import type { ServiceName } from "@trove/contracts";
import { parseConfig } from "@trove/config";
import { startHost, type Host, type Runtime } from "@trove/host";
import { createLogger } from "@trove/log";
import { allServices } from "../../services.ts";
import { freshPglite, pgliteDirFromTemplate } from "./pglite.ts";
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

/** fetch against a Trove's API, as alice unless `key` says otherwise (null: no credential). */
export type Api = (path: string, init?: RequestInit & { key?: string | null; json?: unknown }) => Promise<ApiResponse>;

/** An Api on the gateway at `base()` (read at each call: a restarted Trove may listen elsewhere). */
export function apiAt(base: () => string): Api {
  return (path, init = {}) => {
    const { key = aliceKey, json, ...rest } = init;
    const headers = new Headers(rest.headers);
    if (key !== null) headers.set("authorization", `Bearer ${key}`);
    if (json !== undefined) headers.set("content-type", "application/json");
    return fetch(base() + path, { ...rest, headers, body: json !== undefined ? JSON.stringify(json) : rest.body });
  };
}

export interface TestTrove {
  /** The gateway's address (a restart listens on a new port). */
  readonly url: string;
  /** The admin server's address (/healthz, /readyz, /metrics) when started with `admin: true`. */
  readonly adminUrl: string | undefined;
  stack: TestStack;
  /** The data directory (blobs; with `persistent`, the PGlite database too). */
  dataDir: string;
  /** postgres-nats: the scratch database, to reach it from outside the Trove (cutting its connections, say). */
  databaseUrl: string | undefined;
  /** The database, to read what has no HTTP face yet (the event outbox) and to set up large fixtures. */
  readonly db: Kysely<any>;
  /** Every log line written so far, parsed (across restarts). */
  logs: Record<string, unknown>[];
  /** The blob store the services write uploads to (files, or the NATS Object Store). */
  readonly blobs: BlobStore;
  /** The bus the services share (requests and broadcasts; on NATS also the event stream the relay feeds). */
  readonly bus: Bus;
  /** The host's runtime (config, bus, database, logger), to start another replica of a service on it. */
  readonly runtime: Runtime;
  /** Host names the services asked to resolve (none of them reached DNS). */
  lookups: string[];
  /** fetch against the gateway, as alice unless `key` says otherwise (null: no credential). */
  api: Api;
  /**
   * Stops the Trove as SIGTERM does (graceful: every service stops, the bus and the database close) and starts a
   * new one on the same database, bus namespace and data directory: what a process restart keeps, and only that
   * (the in-process bus and every in-memory state start empty). The embedded stack needs `persistent`.
   */
  restart(opts?: RestartOptions): Promise<void>;
  stop(): Promise<void>;
}

export interface StartTroveOptions {
  /**
   * Services not to start (say, to show that another catches up once it runs): start one later on the shared
   * runtime with `migrateModules([svc], trove.runtime.database)` then `svc.start(trove.runtime)`.
   */
  without?: ServiceName[];
  /**
   * Embedded stack: PGlite in the data directory (made from the template) instead of in memory, as the embedded
   * deployment runs, so that `restart()` opens what was written. The scratch PostgreSQL database always persists.
   */
  persistent?: boolean;
  /** Serve the admin server (/healthz, /readyz, /metrics) on a free port, as every Trove process does; see adminUrl. */
  admin?: boolean;
}

export interface RestartOptions {
  /** Settings laid over the ones the Trove was started with, for this start only. */
  env?: Record<string, string>;
  /** Services not to start this time; every service by default (whatever the first start left out). */
  without?: ServiceName[];
}

export async function startTrove(env: Record<string, string> = {}, opts: StartTroveOptions = {}): Promise<TestTrove> {
  const stack = testStack();
  const dataDir = mkdtempSync(join(tmpdir(), "trove-test-"));
  const prefix = `t${crypto.randomUUID().slice(0, 8)}`;
  const distributed: { DATABASE_URL?: string; NATS_URL?: string; TROVE_BUS_PREFIX?: string } =
    stack === "postgres-nats"
      ? { DATABASE_URL: await createScratchDatabase("svc"), NATS_URL: process.env.NATS_URL!, TROVE_BUS_PREFIX: prefix }
      : {};
  const persistent = stack === "embedded" && opts.persistent === true;
  const settings: Record<string, string> = {
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
  };
  const config = parseConfig(settings);
  const logs: Record<string, unknown>[] = [];
  const lookups: string[] = [];
  const cleanup = async () => {
    rmSync(dataDir, { recursive: true, force: true });
    if (config.natsUrl) await dropNatsNamespace(config.natsUrl, config.busPrefix).catch(() => {});
    if (config.databaseUrl && distributed.DATABASE_URL) await dropScratchDatabase(config.databaseUrl).catch(() => {});
  };
  const boot = async (extra: Record<string, string>, without: ServiceName[] | undefined): Promise<Host> => {
    const bootConfig = parseConfig({ ...settings, ...extra });
    const log = createLogger(bootConfig.logLevel, {}, {
      write(line: string) {
        logs.push(JSON.parse(line));
      },
    });
    return startHost(without ? allServices.filter((m) => !without.includes(m.name)) : allServices, {
      config: bootConfig,
      log,
      // Persistent: the host opens the data directory's database itself, as the embedded deployment does.
      database: stack === "embedded" && !persistent ? await freshPglite() : undefined,
      resolver: loopbackResolver(lookups),
      admin: opts.admin,
    });
  };
  let host: Host | undefined;
  try {
    if (persistent) await pgliteDirFromTemplate(dataDir);
    host = await boot({}, opts.without);
  } catch (err) {
    await cleanup();
    throw err;
  }
  const running = (): Host => {
    if (!host) throw new Error("this Trove is not running (its restart failed or it was stopped)");
    return host;
  };
  return {
    get url() {
      return running().url!;
    },
    get adminUrl() {
      return running().adminUrl;
    },
    stack,
    dataDir,
    databaseUrl: config.databaseUrl,
    get db() {
      return running().runtime.database.db;
    },
    logs,
    lookups,
    get blobs() {
      return running().runtime.blobs;
    },
    get bus() {
      return running().runtime.bus;
    },
    get runtime() {
      return running().runtime;
    },
    api: apiAt(() => running().url!),
    restart: async (r = {}) => {
      if (stack === "embedded" && !persistent) throw new Error("restart() on the embedded stack needs startTrove(env, { persistent: true })");
      // Until the old host has stopped, url, db and bus are still its own; while the new one starts there are none.
      await running().stop();
      host = undefined;
      host = await boot(r.env ?? {}, r.without);
    },
    stop: async () => {
      // While it stops, url and the rest are still the stopping host's (a test may watch the stop through them).
      await host?.stop();
      host = undefined;
      await cleanup();
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
