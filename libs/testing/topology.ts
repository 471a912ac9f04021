// The distributed topology for end-to-end tests: every service its own process over real NATS and PostgreSQL.
// Backing services come from DATABASE_URL/NATS_URL, else from Docker through testcontainers, else the suite is skipped.
import { join } from "node:path";
import type { Subprocess } from "bun";
import { dropNatsNamespace } from "@trove/bus/nats.ts";
import { freePort } from "@trove/cluster";
import { createScratchDatabase, dropScratchDatabase } from "./postgres.ts";
import { testStackDefaults } from "./stack.ts";
import { seedAccounts } from "./trove.ts";

export const repoRoot = join(import.meta.dir, "..", "..");
export { freePort };
export const serviceNames = ["items", "notes", "sources", "delivery", "exports", "gateway"] as const;

export interface Backing {
  databaseUrl: string;
  natsUrl: string;
  /** A fresh bus namespace for this run. */
  prefix: string;
  how: string;
  stop(): Promise<void>;
}

/** PostgreSQL and NATS for one run, or the reason there are none. */
export async function backingServices(): Promise<Backing | { skip: string }> {
  const prefix = `e2e${crypto.randomUUID().slice(0, 8)}`;
  const { DATABASE_URL, NATS_URL } = process.env;
  if (DATABASE_URL && NATS_URL) {
    const databaseUrl = await createScratchDatabase("e2e");
    const stop = async () => {
      await dropNatsNamespace(NATS_URL, prefix);
      await dropScratchDatabase(databaseUrl).catch(() => {});
    };
    return { databaseUrl, natsUrl: NATS_URL, prefix, how: "DATABASE_URL/NATS_URL", stop };
  }
  try {
    const { GenericContainer, Wait } = await import("testcontainers");
    const pg = await new GenericContainer("postgres:15")
      .withEnvironment({ POSTGRES_HOST_AUTH_METHOD: "trust" })
      .withExposedPorts(5432)
      .withWaitStrategy(Wait.forLogMessage(/ready to accept connections/, 2))
      .start();
    const nats = await new GenericContainer("nats:2.9").withCommand(["-js"]).withExposedPorts(4222).start();
    return {
      databaseUrl: `postgres://postgres@${pg.getHost()}:${pg.getMappedPort(5432)}/postgres`,
      natsUrl: `nats://${nats.getHost()}:${nats.getMappedPort(4222)}`,
      prefix,
      how: "testcontainers",
      stop: async () => {
        await Promise.allSettled([pg.stop(), nats.stop()]);
      },
    };
  } catch (err) {
    return { skip: `neither DATABASE_URL/NATS_URL nor a Docker engine is available (${(err as Error).message.split("\n")[0]})` };
  }
}

export function processEnv(backing: Backing, port: number, extra: Record<string, string> = {}): Record<string, string> {
  return {
    PATH: process.env.PATH ?? "",
    HOME: process.env.HOME ?? "/tmp",
    DATABASE_URL: backing.databaseUrl,
    NATS_URL: backing.natsUrl,
    TROVE_BUS_PREFIX: backing.prefix,
    PORT: String(port),
    TROVE_SEED_ACCOUNTS: seedAccounts,
    TROVE_ALLOW_PRIVATE_NETWORK: "1",
    LOG_LEVEL: "warn",
    TROVE_VALIDATE_RESPONSES: "1",
    // Many processes per machine: each admin server on a free port of its own (the default 9464 would collide).
    TROVE_ADMIN_PORT: "0",
    ...testStackDefaults,
    ...extra,
  };
}

/** Runs `bun run <script>` from the repository root. */
export function spawnBun(script: string, env: Record<string, string>): Subprocess {
  return Bun.spawn(["bun", "run", script], { cwd: repoRoot, env, stdout: "inherit", stderr: "inherit" });
}

/** Waits until /api/health answers with the wanted status. */
export async function waitForHealth(url: string, want: "ok" | "degraded" = "ok", ms = 60_000): Promise<Record<string, any>> {
  const until = Date.now() + ms;
  let last: unknown;
  while (Date.now() < until) {
    try {
      const res = await fetch(`${url}/api/health`);
      const body = (await res.json()) as Record<string, any>;
      if (body.status === want) return body;
      last = body;
    } catch (err) {
      last = (err as Error).message;
    }
    await Bun.sleep(100);
  }
  throw new Error(`health did not become ${want} within ${ms} ms; last: ${JSON.stringify(last)}`);
}

/** A service's process by name, or a further replica's as `<name>#<n>`. */
export type ProcessName = (typeof serviceNames)[number] | `${(typeof serviceNames)[number]}#${number}`;

export interface Topology {
  url: string;
  /** Each service's process by name; further replicas as `<name>#2`, `<name>#3`... */
  procs: Map<string, Subprocess>;
  /** Starts one process again (after it was stopped): a service's name, or a replica's `<name>#<n>`. */
  restart(name: ProcessName): void;
  /** Sends `signal` (SIGKILL by default) to one process and waits for it to exit; resolves its exit code. */
  kill(name: ProcessName, signal?: NodeJS.Signals | number): Promise<number>;
  stop(): Promise<void>;
}

/**
 * Every service as its own process: `bun run services/<name>/main.ts`; `replicas` starts more processes of a
 * service once the first ones are healthy (so that their migrations have run).
 */
export async function launchDistributed(
  backing: Backing,
  extraEnv: Record<string, string> = {},
  opts: { replicas?: Partial<Record<(typeof serviceNames)[number], number>> } = {},
): Promise<Topology> {
  const port = await freePort();
  const env = processEnv(backing, port, extraEnv);
  const procs = new Map<string, Subprocess>();
  const start = (name: string) => procs.set(name, spawnBun(`services/${name.replace(/#\d+$/, "")}/main.ts`, env));
  for (const name of serviceNames) start(name);
  const url = `http://127.0.0.1:${port}`;
  const topology: Topology = {
    url,
    procs,
    restart: start,
    kill: async (name, signal = "SIGKILL") => {
      const proc = procs.get(name);
      if (!proc) throw new Error(`no process ${name}`);
      proc.kill(signal);
      return proc.exited;
    },
    stop: async () => {
      for (const p of procs.values()) p.kill("SIGTERM");
      await Promise.all([...procs.values()].map((p) => p.exited));
    },
  };
  try {
    await waitForHealth(url);
    for (const [name, n] of Object.entries(opts.replicas ?? {})) for (let i = 2; i <= n; i++) start(`${name}#${i}`);
  } catch (err) {
    await topology.stop();
    throw err;
  }
  return topology;
}
