// Job handling through the gateway: the per-account limit of open jobs under parallel requests, a queued job's
// download (409), and jobs taken up by another replica: queued ones, one whose replica died mid-run, and one
// interrupted so often that it is failed rather than left running. The first replica serves the routes and runs
// no job (TROVE_JOB_WORKERS=0); a second replica on the same database and bus, with work queues of its own, runs
// them. An embedded Trove restarted on its data queues at once what its killed self left running, export record and all.
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { strFromU8 } from "fflate";
import { sql } from "kysely";
import type { RunningService } from "@trove/host";
import { Jobs } from "@trove/jobs";
import { bobKey, startTrove, testStack, type TestTrove } from "@trove/testing";
import { exportsService } from "../index.ts";
import { seedLibrary, waitForJob } from "./helpers.ts";

let trove: TestTrove;
let worker: { service: RunningService; jobs: Jobs } | undefined;
beforeAll(async () => {
  trove = await startTrove({ TROVE_RATE_LIMIT: "1000000", TROVE_JOB_WORKERS: "0", TROVE_JOBS_TICK_MS: "100" });
  await seedLibrary(trove);
});
afterAll(async () => {
  await stopWorker();
  await trove.stop();
});

/** Another exports replica that runs jobs, as its host would start it: the service, then its queues' worker. */
const startWorker = async () => {
  const rt = trove.runtime;
  const jobs = new Jobs({ db: rt.database.db, bus: rt.bus, log: rt.log.child({ replica: "worker" }), leaseMs: rt.config.jobLeaseMs });
  const service = await exportsService.start({ ...rt, jobs, config: { ...rt.config, jobWorkers: 2 } });
  jobs.start();
  worker = { service, jobs };
};

/** Stops that replica as its host would: the service, then its worker, whose running jobs get `graceMs`. */
const stopWorker = async (graceMs = trove.runtime.config.stopGraceMs) => {
  if (!worker) return;
  await worker.service.stop();
  await worker.jobs.stop(graceMs);
  worker = undefined;
};

const start = (key?: string) => trove.api("/api/exports", { method: "POST", json: { format: "json" }, key });

describe("open jobs", () => {
  test("at most three open jobs per account, also under parallel requests; 429 too_many_jobs beyond", async () => {
    const answers = await Promise.all(Array.from({ length: 10 }, () => start()));
    const statuses = answers.map((r) => r.status).sort();
    expect(statuses).toEqual([200, 200, 200, 429, 429, 429, 429, 429, 429, 429]);
    const refused = await answers.find((r) => r.status === 429)!.json();
    expect(refused).toMatchObject({ error: "too_many_jobs", limit: 3 });
    // Another account has its own limit.
    expect((await start(bobKey)).status).toBe(200);

    const queued = (await (await trove.api("/api/exports")).json()).exports;
    expect(queued.map((j: any) => j.status)).toEqual(["queued", "queued", "queued"]);
    const early = await trove.api(`/api/exports/${queued[0].id}/download`);
    expect(early.status).toBe(409);
    expect(await early.json()).toMatchObject({ error: "export_not_ready", status: "queued" });

    // A replica that runs jobs takes every queued one up; then the account may start more.
    await startWorker();
    for (const job of queued) expect((await waitForJob(trove, "exports", job.id)).status).toBe("completed");
    const file = await trove.api(`/api/exports/${queued[0].id}/download`);
    expect(JSON.parse(await file.text()).items).toHaveLength(4);
    expect((await start()).status).toBe(200);
  });
});

describe("interrupted jobs", () => {
  test("a running job whose replica died is taken over once its lease ran out and completes; one interrupted too often fails", async () => {
    await stopWorker();
    const resumed = (await (await start()).json()).export.id;
    const doomed = (await (await start()).json()).export.id;
    // What a replica that died mid-run leaves behind: its claims, their leases run out, and the jobs shown running.
    // The second had already been started three times.
    for (const [id, attempts] of [
      [resumed, 1],
      [doomed, 3],
    ] as const) {
      await sql`update exports.queue set state = 'running', lease_token = 'a-dead-replica', lease_until = 1, attempts = ${attempts} where id = ${id}`.execute(trove.db);
      await sql`update exports.jobs set status = 'running' where id = ${id}`.execute(trove.db);
    }
    await startWorker();
    const done = await waitForJob(trove, "exports", resumed);
    expect(done).toMatchObject({ status: "completed", itemCount: 4 });
    const file = await trove.api(`/api/exports/${resumed}/download`);
    expect(JSON.parse(strFromU8(new Uint8Array(await file.arrayBuffer()))).items).toHaveLength(4);
    const failed = await waitForJob(trove, "exports", doomed);
    expect(failed.status).toBe("failed");
    expect(failed.error).toBe("interrupted 3 times before it could finish");
    const res = await trove.api(`/api/exports/${doomed}/download`);
    expect(res.status).toBe(409);
    expect((await res.json()).error).toBe("export_not_ready");
  });

  test("a replica stopping mid-run gives its job back at once for the next one", async () => {
    const id = (await (await start()).json()).export.id;
    // No grace: whether the stop finds the job queued, running or done, it must not stay running.
    await stopWorker(0);
    const { export: job } = await (await trove.api(`/api/exports/${id}`)).json();
    expect(["queued", "completed"]).toContain(job.status);
    await startWorker();
    // Well inside the 30 s lease a job not given back would wait out.
    expect((await waitForJob(trove, "exports", id, undefined, 15_000)).status).toBe("completed");
  });

  // The embedded deployment alone on its data: what its killed self left running is queued again at start, the
  // export's own record with it, before anything could claim it (here nothing does: no worker runs exports).
  if (testStack() === "embedded") test("an export whose embedded process was killed mid-run reads queued at once after the restart, and completes", async () => {
    const t = await startTrove({ TROVE_RATE_LIMIT: "1000000", TROVE_JOB_WORKERS: "0" }, { persistent: true });
    try {
      await seedLibrary(t);
      const id = (await (await t.api("/api/exports", { method: "POST", json: { format: "json" } })).json()).export.id;
      // What a process killed while it ran the export leaves behind: its claim, an hour of lease left, the export running.
      await sql`update exports.queue set state = 'running', lease_token = 'a-killed-process', lease_until = ${Date.now() + 3_600_000}::int8,
        attempts = 1 where id = ${id}`.execute(t.db);
      await sql`update exports.jobs set status = 'running' where id = ${id}`.execute(t.db);
      expect((await (await t.api(`/api/exports/${id}`)).json()).export.status).toBe("running");

      await t.restart();
      expect((await (await t.api(`/api/exports/${id}`)).json()).export.status).toBe("queued");
      await t.restart({ env: { TROVE_JOB_WORKERS: "1" } });
      expect((await waitForJob(t, "exports", id)).status).toBe("completed");
    } finally {
      await t.stop();
    }
  }, 120_000);
});

