// The exports service's work, each kind a queue in `exports.queue`: export and import jobs (one queue job per job
// row, with the same id), the pages imports leave to fetch (one job per page, grouped by host for politeness), and
// the deletion of an export file when it expires. A fault of ours (a service away, the database, the worker pool)
// is tried again later; the job's own failure (a bad file, a filter no longer valid) ends it with its reason.
import type { BlobStore } from "@trove/blobs";
import { nowSeconds } from "@trove/db";
import { AppError } from "@trove/errors";
import { defineQueue, FailNow, failNow, LeaseLost, retryAt, type JobContext, type QueueDefinition } from "@trove/jobs";
import type { Logger } from "@trove/log";
import type { ExportRunner } from "./export-runner.ts";
import type { ImportRunner } from "./import-runner.ts";
import type { JobsRepository } from "./jobs.repository.ts";
import type { PageFetcher } from "./page-fetch.ts";
import { queueNames, type JobPayload, type PageFetchPayload } from "./queue-names.ts";

/** Runs a job may start: a failure after the last, or a job cut short by a crash once more, is final. */
const jobAttempts = 3;
const fetchAttempts = 5;
/** Pages of different hosts one replica fetches at once. */
const concurrentFetches = 4;

export interface QueueDeps {
  jobs: JobsRepository;
  blobs: BlobStore;
  runners: { export: ExportRunner; import: ImportRunner; fetch: PageFetcher };
  /** Export and import jobs one replica runs at once, of each kind (TROVE_JOB_WORKERS); 0: it runs none. */
  workers: number;
  /** The longest a worker sleeps between looks for work another replica queued (TROVE_JOBS_TICK_MS). */
  tickMs: number;
  /** Least time between two fetches of one host (TROVE_IMPORT_HOST_GAP_MS). */
  hostGapMs: number;
  log: Logger;
}

export function exportsQueues(d: QueueDeps): QueueDefinition<any>[] {
  const kind = (name: "export" | "import") =>
    defineQueue<JobPayload>({
      name,
      maxAttempts: jobAttempts,
      backoff: { firstMs: 5_000, maxMs: 60_000 },
      concurrency: d.workers,
      tickMs: d.tickMs,
      run: async (job, ctx) => {
        try {
          await d.runners[name].run(ctx);
        } catch (err) {
          throw ending(err, ctx, d.log.child({ jobId: job.id, kind: name }));
        }
      },
      requeued: (uow, job) => d.jobs.on(uow).requeue(job.payload.jobId),
      failed: async (uow, job, reason) => {
        const jobs = d.jobs.on(uow);
        await jobs.fail(job.payload.jobId, reason, nowSeconds());
        // A failed import's upload is of no more use (a completed one's is removed by its run).
        const upload = name === "import" ? (await jobs.byId(job.payload.jobId))?.blob : null;
        if (upload) uow.afterCommit(() => void d.blobs.delete(upload).catch((err: unknown) => d.log.warn({ err, blob: upload }, "could not delete an upload")));
      },
    });

  const pageFetch = defineQueue<PageFetchPayload>({
    name: queueNames.pageFetch,
    maxAttempts: fetchAttempts,
    backoff: { firstMs: 10_000, maxMs: 300_000 },
    concurrency: d.workers > 0 ? concurrentFetches : 0,
    tickMs: d.tickMs,
    group: { of: (p) => p.host, limit: 1, gapMs: d.hostGapMs },
    run: (job, ctx) => d.runners.fetch.run(job.payload, ctx),
    failed: (uow, job, reason) => d.runners.fetch.failed(uow, job.payload, reason),
  });

  const expiry = defineQueue<JobPayload>({
    name: queueNames.expiry,
    maxAttempts: 10,
    // Every replica deletes expired files, one at a time, whether it runs jobs or not.
    concurrency: 1,
    tickMs: d.tickMs,
    run: async (job, ctx) => {
      const file = await d.jobs.exportFile(job.payload.jobId);
      if (!file?.blob) return;
      // Due at the expiry by this replica's clock; another's may be a little behind.
      if (file.expiresAt !== null && file.expiresAt > nowSeconds()) throw retryAt(file.expiresAt * 1000, "the file has not expired yet");
      await d.blobs.delete(file.blob);
      await ctx.complete((uow) => d.jobs.on(uow).forgetBlob(job.payload.jobId));
      d.log.info({ jobId: job.payload.jobId }, "expired export file deleted");
    },
  });

  return [kind("export"), kind("import"), pageFetch, expiry];
}

/** What a run's error means for its job: the queue retries any error it is given, and fails the job on a FailNow. */
function ending(err: unknown, ctx: JobContext<unknown>, log: Logger): unknown {
  // The job's own end (a file that cannot be read), or the queue's business (a lost lease, a stop).
  if (err instanceof FailNow || err instanceof LeaseLost || ctx.signal.aborted) return err;
  // Another service's answer: its 4xx says the job cannot be done; its 5xx (unavailable, timeout, a fault) is ours.
  if (err instanceof AppError) return err.status >= 500 ? err : failNow(err.message);
  // Anything else is ours too (the database, the blob store, the worker pool): tried again, its detail logged, not shown.
  log.error({ err }, "job run failed");
  return new Error("internal error");
}
