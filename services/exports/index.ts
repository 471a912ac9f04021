// The exports service: export jobs (the library as a Markdown ZIP, JSON or CSV file in the blob store) and import
// jobs (files from other services, saved through the items service), the polite background fetch of imported
// entries that came without content, and the deletion of export files past their time, all on the work queue in
// its schema. It reads no other service's tables: items come and go over the bus.
import { join } from "node:path";
import { serveOperations, type ServiceModule } from "@trove/host";
import { exportsEndpoints } from "./endpoints.ts";
import { ExportRunner } from "./export-runner.ts";
import { ExportsService } from "./exports.service.ts";
import { FetchesRepository } from "./fetches.repository.ts";
import { ImportRunner } from "./import-runner.ts";
import { ImportsService } from "./imports.service.ts";
import { JobsRepository } from "./jobs.repository.ts";
import { PageFetcher } from "./page-fetch.ts";
import { exportsQueues } from "./queues.ts";

export const exportsService: ServiceModule = {
  name: "exports",
  schema: { name: "exports", migrations: join(import.meta.dir, "migrations"), queue: true },
  async start(rt) {
    const db = rt.database.db;
    const jobs = new JobsRepository(db);
    const fetches = new FetchesRepository(db);
    const queue = rt.jobs.for("exports");
    const timeouts = { requestTimeoutMs: rt.config.requestTimeoutMs };
    const runners = {
      export: new ExportRunner(jobs, queue, rt.bus, rt.blobs, { ...timeouts, retentionHours: rt.config.exportRetentionHours }),
      import: new ImportRunner(jobs, fetches, queue, rt.bus, rt.blobs, rt.workers, timeouts),
      fetch: new PageFetcher(jobs, fetches, rt.bus, timeouts),
    };
    const queues = exportsQueues({
      jobs,
      blobs: rt.blobs,
      runners,
      workers: rt.config.jobWorkers,
      tickMs: rt.config.jobsTickMs,
      hostGapMs: rt.config.importHostGapMs,
      log: rt.log.child({ part: "jobs" }),
    });
    for (const def of queues) queue.register(def);
    const domain = {
      exports: new ExportsService(db, jobs, queue, rt.bus, rt.config.requestTimeoutMs, rt.config.maxOpenJobs),
      imports: new ImportsService(db, jobs, fetches, queue, rt.blobs, rt.config.maxOpenJobs),
    };
    const subs = serveOperations(rt.bus, "exports", exportsEndpoints(domain), rt.log);
    // The host starts the queue's worker after every service, and stops it (running jobs finish or are given back)
    // before this stop, while every service still answers.
    return {
      stop: async () => {
        for (const s of subs) await s.stop();
      },
    };
  },
};
