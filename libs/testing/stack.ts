// Which backing services the service tests run on. `bun run test` runs the service suites twice: on the
// embedded stack (PGlite + the in-process bus) and, when DATABASE_URL and NATS_URL are set, again with
// TROVE_TEST_STACK=postgres-nats (PostgreSQL + NATS, every service in this process).
import type { Resolver } from "@trove/webfetch";

export type TestStack = "embedded" | "postgres-nats";

/** The stack this test process runs on; postgres-nats demands DATABASE_URL and NATS_URL. */
export function testStack(): TestStack {
  const raw = process.env.TROVE_TEST_STACK ?? "embedded";
  if (raw !== "embedded" && raw !== "postgres-nats") throw new Error(`TROVE_TEST_STACK must be embedded or postgres-nats, got ${raw}`);
  if (raw === "postgres-nats" && !(process.env.DATABASE_URL && process.env.NATS_URL)) {
    throw new Error("TROVE_TEST_STACK=postgres-nats needs DATABASE_URL and NATS_URL");
  }
  return raw;
}

/**
 * The resolver every in-process test Trove fetches with: `localhost` is loopback and every other name does not
 * resolve, so no test ever asks real DNS (a name that must fail uses `.invalid` or `.test`). Names asked are
 * recorded, so a test can show that a lookup was (or was not) made.
 */
export function loopbackResolver(asked: string[] = []): Resolver {
  return async (hostname) => {
    asked.push(hostname);
    if (hostname.toLowerCase().replace(/\.$/, "") === "localhost") {
      return [
        { address: "127.0.0.1", family: 4 },
        { address: "::1", family: 6 },
      ];
    }
    throw Object.assign(new Error(`${hostname} does not resolve in tests`), { code: "ENOTFOUND" });
  };
}

/** Loopback in every spelling the SSRF guard must see through, and cloud metadata: origins, a path appended by the test. */
export const loopbackOrigins = [
  "http://127.0.0.1",
  "http://127.1",
  "http://2130706433",
  "http://0x7f.0.0.1",
  "http://[::1]",
  "http://[::ffff:127.0.0.1]",
  "http://localhost:8080",
  "http://LOCALHOST.",
  "http://0.0.0.0",
  "https://169.254.169.254",
];

/**
 * Settings every test Trove (in-process, and the processes of the end-to-end topologies and benches) starts with
 * unless the caller says otherwise: semantic search off, so that only the semantic tests and bench (which pass
 * `TROVE_SEMANTIC: "on"`) load the embedding model and embed what they save; no mail listener unless a test asks
 * for one with a free port (test files run side by side); the admin server on any free port (many processes share
 * the machine; an in-process Trove serves one only when started with `admin: true`).
 */
export const testStackDefaults: Record<string, string> = { TROVE_SEMANTIC: "off", TROVE_SMTP_PORT: "0", TROVE_ADMIN_PORT: "0" };
