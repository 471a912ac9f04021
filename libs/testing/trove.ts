// A whole Trove in this process for service tests: every service, a fresh PGlite database, the in-process bus,
// the gateway on a free port, and two seeded accounts. What is real: all of it; nothing is mocked.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Kysely } from "kysely";
import { parseConfig } from "@trove/config";
import { startHost } from "@trove/host";
import { createLogger } from "@trove/log";
import { allServices } from "../../services.ts";
import { freshPglite } from "./pglite.ts";

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
  /** The database, to read what has no HTTP face yet (the event outbox). */
  db: Kysely<any>;
  /** Every log line written so far, parsed. */
  logs: Record<string, unknown>[];
  /** fetch against the gateway, as alice unless `key` says otherwise (null: no credential). */
  api(path: string, init?: RequestInit & { key?: string | null; json?: unknown }): Promise<ApiResponse>;
  stop(): Promise<void>;
}

export async function startTrove(env: Record<string, string> = {}): Promise<TestTrove> {
  const dataDir = mkdtempSync(join(tmpdir(), "trove-test-"));
  const config = parseConfig({
    PORT: "0",
    TROVE_DATA_DIR: dataDir,
    LOG_LEVEL: "info",
    TROVE_SEED_ACCOUNTS: seedAccounts,
    TROVE_ALLOW_PRIVATE_NETWORK: "1",
    // Every test checks every reply against the contract's schemas.
    TROVE_VALIDATE_RESPONSES: "1",
    ...env,
  });
  const logs: Record<string, unknown>[] = [];
  const log = createLogger(config.logLevel, {}, {
    write(line: string) {
      logs.push(JSON.parse(line));
    },
  });
  const host = await startHost(allServices, { config, log, database: await freshPglite() });
  const url = host.url!;
  return {
    url,
    db: host.runtime.database.db,
    logs,
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
