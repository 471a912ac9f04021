// Real: whole hosts (every service, the gateway on a free port) on PGlite in a data directory with the in-process
// bus, and, when DATABASE_URL and NATS_URL are set, on a scratch PostgreSQL database with NATS. The exports service
// is started with a queue of the test's own in its schema (no service keeps jobs yet); what a user sees of it is
// GET /api/health, and that a job outlives the process that held it.
import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "kysely";
import { dropNatsNamespace } from "@trove/bus/nats.ts";
import { parseConfig } from "@trove/config";
import { inTransaction } from "@trove/db";
import { defineQueue, type QueueDefinition } from "@trove/jobs";
import { createLogger } from "@trove/log";
import { createScratchDatabase, dropScratchDatabase, eventually, loopbackResolver, seedAccounts, testStackDefaults } from "@trove/testing";
import { allServices } from "../../../services.ts";
import { startHost, type Host, type ServiceModule } from "../index.ts";

interface Stack {
  label: string;
  embedded: boolean;
  /** The environment of every host of one test: the same data each time. */
  env(): Promise<Record<string, string>>;
  cleanup(env: Record<string, string>): Promise<void>;
}

const stacks: Stack[] = [
  {
    label: "PGlite and the in-process bus",
    embedded: true,
    env: async () => ({ TROVE_DATA_DIR: mkdtempSync(join(tmpdir(), "trove-queue-")) }),
    cleanup: async (env) => rmSync(env.TROVE_DATA_DIR!, { recursive: true, force: true }),
  },
];
if (process.env.DATABASE_URL && process.env.NATS_URL) {
  stacks.push({
    label: "PostgreSQL and NATS",
    embedded: false,
    env: async () => ({
      TROVE_DATA_DIR: mkdtempSync(join(tmpdir(), "trove-queue-")),
      DATABASE_URL: await createScratchDatabase("queue"),
      NATS_URL: process.env.NATS_URL!,
      TROVE_BUS_PREFIX: `q${crypto.randomUUID().slice(0, 8)}`,
    }),
    cleanup: async (env) => {
      rmSync(env.TROVE_DATA_DIR!, { recursive: true, force: true });
      await dropNatsNamespace(env.NATS_URL!, env.TROVE_BUS_PREFIX!).catch(() => {});
      await dropScratchDatabase(env.DATABASE_URL!).catch(() => {});
    },
  });
} else {
  console.log("SKIPPED host queue tests on PostgreSQL + NATS: DATABASE_URL and NATS_URL are not both set");
  describe.skip("host work queues on PostgreSQL and NATS (skipped: DATABASE_URL and NATS_URL are not both set)", () => test("the host queue tests", () => {}));
}

/** Every service, the exports service keeping jobs of `probe` in its schema. */
function servicesWith(probe: QueueDefinition<any>): ServiceModule[] {
  return allServices.map((m) =>
    m.name !== "exports"
      ? m
      : {
          ...m,
          schema: { ...m.schema!, queue: true },
          start: async (rt) => {
            rt.jobs.for("exports").register(probe);
            return m.start(rt);
          },
        },
  );
}

async function boot(env: Record<string, string>, probe: QueueDefinition<any>): Promise<Host> {
  const config = parseConfig({
    PORT: "0",
    LOG_LEVEL: "silent",
    TROVE_SEED_ACCOUNTS: seedAccounts,
    TROVE_VALIDATE_RESPONSES: "1",
    ...testStackDefaults,
    ...env,
  });
  return startHost(servicesWith(probe), { config, log: createLogger("silent"), resolver: loopbackResolver() });
}

async function health(host: Host): Promise<any> {
  const res = await fetch(`${host.url}/api/health`);
  expect(res.status).toBe(200);
  return res.json();
}

/** A probe job that waits for the test (or for its abort, on a stop) and tells when it started. */
function probeQueue(o: { concurrency: number }) {
  const started: number[] = [];
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  const def = defineQueue<{ n: number }>({
    name: "probe",
    maxAttempts: 3,
    concurrency: o.concurrency,
    run: async (job, ctx) => {
      started.push(job.attempt);
      await Promise.race([released, new Promise((resolve) => ctx.signal.addEventListener("abort", resolve))]);
      ctx.signal.throwIfAborted();
    },
  });
  return { def, started, release };
}

for (const stack of stacks) {
  describe(`host work queues on ${stack.label}`, () => {
    const hosts: Host[] = [];
    const envs: Record<string, string>[] = [];
    afterAll(async () => {
      for (const h of hosts) await h.stop().catch(() => {});
      for (const env of envs) await stack.cleanup(env);
    });

    async function newEnv(extra: Record<string, string> = {}) {
      const env = { ...(await stack.env()), ...extra };
      envs.push(env);
      return env;
    }

    test("GET /api/health counts the jobs of each service that keeps them; a stop gives a running job back and the next start runs it", async () => {
      const env = await newEnv({ TROVE_STOP_GRACE_MS: "0" });
      const first = probeQueue({ concurrency: 1 });
      const a = await boot(env, first.def);
      hosts.push(a);
      const jobs = a.runtime.jobs.for("exports");
      const held = await inTransaction(a.runtime.database.db, (uow) => jobs.enqueue(uow, first.def, { n: 1 }));
      await inTransaction(a.runtime.database.db, (uow) => jobs.enqueue(uow, first.def, { n: 2 }, { runAt: Date.now() + 3_600_000 }));
      await eventually(() => first.started.length === 1, 20_000);

      const body = await health(a);
      expect(body.status).toBe("ok");
      expect(body.services.exports.queue).toEqual({ queued: 1, due: 0, running: 1, leaseExpired: 0, failed: 0 });
      expect(body.services.notes.queue).toBeUndefined();

      await a.stop(); // a grace of 0: the running job is given back at once, its attempt returned
      const second = probeQueue({ concurrency: 1 });
      second.release();
      const b = await boot(env, second.def);
      hosts.push(b);
      const again = b.runtime.jobs.for("exports");
      await eventually(async () => (await again.status(held))?.state === "done", 20_000);
      expect(second.started).toEqual([1]);
      expect((await health(b)).services.exports.queue).toEqual({ queued: 1, due: 0, running: 0, leaseExpired: 0, failed: 0 });
      await b.stop();
    });

    if (stack.embedded) test("a process that starts alone on its data runs at once the jobs its crashed self left claimed", async () => {
      const env = await newEnv();
      const idle = probeQueue({ concurrency: 0 });
      const a = await boot(env, idle.def);
      hosts.push(a);
      const db = a.runtime.database.db;
      const id = await inTransaction(db, (uow) => a.runtime.jobs.for("exports").enqueue(uow, idle.def, { n: 1 }));
      // What a process killed in the middle of the job leaves behind: its claim, with an hour of lease left.
      await sql`update exports.queue set state = 'running', lease_token = 'a-dead-process', lease_until = ${Date.now() + 3_600_000}::int8,
        attempts = 1 where id = ${id}`.execute(db);
      expect((await health(a)).services.exports.queue).toMatchObject({ running: 1, leaseExpired: 0 });
      await a.stop();

      const next = probeQueue({ concurrency: 1 });
      next.release();
      const b = await boot(env, next.def);
      hosts.push(b);
      await eventually(async () => (await b.runtime.jobs.for("exports").status(id))?.state === "done", 20_000);
      expect(next.started).toEqual([2]);
      await b.stop();
    });
  });
}
