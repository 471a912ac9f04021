// The exports service: export jobs (the library as a Markdown ZIP, JSON or CSV file in the blob store) and import
// jobs (files from other services, saved through the items service), run in the background under leases, and the
// polite background fetch of imported entries that came without content. It reads no other service's tables:
// items come and go over the bus.
import { join } from "node:path";
import { serveOperations, type ServiceModule } from "@trove/host";
import { exportsEndpoints } from "./endpoints.ts";
import { ExportRunner } from "./export-runner.ts";
import { ExportsService } from "./exports.service.ts";
import { Fetcher } from "./fetcher.ts";
import { FetchesRepository } from "./fetches.repository.ts";
import { ImportRunner } from "./import-runner.ts";
import { ImportsService } from "./imports.service.ts";
import { JobLoop } from "./job-loop.ts";
import { JobsRepository } from "./jobs.repository.ts";

export const exportsService: ServiceModule = {
  name: "exports",
  schema: { name: "exports", migrations: join(import.meta.dir, "migrations") },
  async start(rt) {
    const db = rt.database.db;
    const jobs = new JobsRepository(db);
    const timeouts = { requestTimeoutMs: rt.config.requestTimeoutMs };
    const fetcher = new Fetcher(new FetchesRepository(db), rt.bus, { gapMs: rt.config.importHostGapMs, tickMs: rt.config.jobsTickMs, ...timeouts }, rt.log.child({ part: "fetcher" }));
    const runners = {
      export: new ExportRunner(jobs, rt.bus, rt.blobs, { ...timeouts, retentionHours: rt.config.exportRetentionHours }),
      import: new ImportRunner(jobs, rt.bus, rt.blobs, rt.workers, timeouts, fetcher.poke),
    };
    const loop = new JobLoop(jobs, rt.blobs, runners, { tickMs: rt.config.jobsTickMs, workers: rt.config.jobWorkers }, rt.log.child({ part: "jobs" }));
    const domain = {
      exports: new ExportsService(jobs, rt.bus, rt.config.requestTimeoutMs, rt.config.maxOpenJobs, loop.poke),
      imports: new ImportsService(jobs, rt.blobs, rt.config.maxOpenJobs, loop.poke),
    };
    const subs = serveOperations(rt.bus, "exports", exportsEndpoints(domain), rt.log);
    loop.start();
    if (rt.config.jobWorkers > 0) fetcher.start();
    return {
      stop: async () => {
        for (const s of subs) await s.stop();
        await loop.stop();
        await fetcher.stop();
      },
    };
  },
};
