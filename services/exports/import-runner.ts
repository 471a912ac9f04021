// Runs one import job: parses the uploaded file on the worker pool (with a deadline), then saves its entries
// through the items service a batch at a time, as the key that started the job (dedupe, quota and events apply as
// for any save). Each batch's outcome is recorded in one step with the job's progress, so a job taken up again
// after a restart goes on from the first entry not recorded. Each entry saved without content gets a page fetch job
// in the same step.
import {
  accountCallerSubject,
  importEntriesSubject,
  type Caller,
  type ImportEntriesReply,
  type ImportEntry,
  type ImportFormat,
  type ImportParseResult,
} from "@trove/contracts";
import type { BlobStore } from "@trove/blobs";
import type { Bus } from "@trove/bus";
import { nextTurn, nowSeconds } from "@trove/db";
import { callerHeaders } from "@trove/host";
import { failNow, type JobContext, type QueueSet } from "@trove/jobs";
import { importParseTaskName } from "@trove/portability/import/task-input.ts";
import { TaskFailedError, WorkerTimeoutError, type WorkerPool } from "@trove/workers";
import type { FetchesRepository } from "./fetches.repository.ts";
import type { ImportProgress, JobRow, JobsRepository } from "./jobs.repository.ts";
import { queueNames, type JobPayload, type PageFetchPayload } from "./queue-names.ts";

/** Entries per request to the items service. */
const batchEntries = 100;
/** The deadline of parsing one file on a worker. */
const parseDeadlineMs = 120_000;

export class ImportRunner {
  constructor(
    private readonly jobs: JobsRepository,
    private readonly fetches: FetchesRepository,
    private readonly queue: QueueSet,
    private readonly bus: Bus,
    private readonly blobs: BlobStore,
    private readonly workers: WorkerPool,
    private readonly opts: { requestTimeoutMs: number },
  ) {}

  /** One run of the job, from the first entry whose outcome is not recorded. Ends the queue's job as it completes. */
  async run(ctx: JobContext<JobPayload>): Promise<void> {
    const job = await this.jobs.byId(ctx.job.payload.jobId);
    if (!job || job.status === "completed" || job.status === "failed") return;
    await ctx.write((uow) => this.jobs.on(uow).start(job.id, nowSeconds(), false));
    const bytes = job.blob ? await this.blobs.get(job.blob) : undefined;
    if (!bytes) throw failNow("the uploaded file is no longer stored");
    const parsed = await this.parse(bytes, job.format as ImportFormat);
    // Some reasons describe an entry that was still read, with a part missing (its highlights, its page): listed
    // with the failures for the user to see, not counted as entries lost.
    const partial = parsed.errors.filter((e) => e.partial);
    const lost = parsed.errors.filter((e) => !e.partial);
    const unreadable = lost.length;
    const total = parsed.entries.length + unreadable;
    if (Number(job.entries) !== total) await ctx.write((uow) => this.jobs.on(uow).setEntries(job.id, total));
    // Entries the file could not give are the first failures (recorded once: a resumed job finds them there).
    let processed = Number(job.processed);
    if (processed === 0 && parsed.errors.length > 0) {
      const failures = [...lost, ...partial].map((e, seq) => ({ seq, idx: e.index, url: e.hint ?? null, reason: e.reason }));
      await this.record(ctx, job, { ...emptyProgress(), processed: unreadable, failed: unreadable, failures });
      processed = unreadable;
    }
    // Failure rows are numbered in one sequence: the file's own first, then the entries the items service refused.
    let nextSeq = parsed.errors.length + Number(job.failed) - (Number(job.processed) === 0 ? 0 : unreadable);
    const caller = await this.currentCaller(job.caller);
    for (let i = processed - unreadable; i < parsed.entries.length; i += batchEntries) {
      await nextTurn();
      ctx.signal.throwIfAborted();
      const batch = parsed.entries.slice(i, i + batchEntries);
      const reply = (await this.bus.request(importEntriesSubject, { entries: batch }, { timeoutMs: this.opts.requestTimeoutMs * 2, headers: callerHeaders(caller) })) as ImportEntriesReply;
      const progress = tally(batch, reply, i, nextSeq, parsed.entries.length);
      nextSeq += progress.failed;
      await this.record(ctx, job, progress);
      if (progress.stoppedBy) break;
    }
    const note = parsed.truncated ? `the file ends early (${parsed.truncated}); what was readable was imported` : null;
    await ctx.complete((uow) => this.jobs.on(uow).completeImport(job.id, nowSeconds(), note));
    // Only once completed: a replica that takes over an unfinished job reads the file again.
    if (job.blob) await this.blobs.delete(job.blob).catch(() => {});
  }

  private async parse(bytes: Uint8Array, format: ImportFormat): Promise<ImportParseResult> {
    try {
      return (await this.workers.run(importParseTaskName, { bytes, format }, { deadlineMs: parseDeadlineMs })) as ImportParseResult;
    } catch (err) {
      // The parser's own refusals (a zip bomb, a file that is not this format) carry their reason.
      if (err instanceof TaskFailedError && err.errorName === "ImportFileError") throw failNow(err.message);
      if (err instanceof WorkerTimeoutError) throw failNow(`the file could not be read within ${parseDeadlineMs / 1000} s`);
      throw err;
    }
  }

  /** A batch's outcome, and a fetch job for each page it leaves to fetch, in one unit of work under the run's lease. */
  private async record(ctx: JobContext<JobPayload>, job: JobRow, p: ImportProgress): Promise<void> {
    await ctx.write(async (uow) => {
      await this.jobs.on(uow).recordImport(job.id, p);
      const added = await this.fetches.on(uow).add(job.id, p.fetches);
      const fetches = added.map((f) => ({ payload: { jobId: job.id, ...f } satisfies PageFetchPayload, accountId: job.account_id }));
      await this.queue.enqueueMany(uow, queueNames.pageFetch, fetches);
    });
  }

  /** The key that started the job with the account's plan as it is now (it may have changed since). */
  private async currentCaller(started: Caller): Promise<Caller> {
    const now = (await this.bus.request(accountCallerSubject, { accountId: started.accountId }, { timeoutMs: this.opts.requestTimeoutMs })) as Caller;
    return { ...started, plan: now.plan };
  }
}

const emptyProgress = (): ImportProgress => ({ processed: 0, created: 0, present: 0, failed: 0, notImported: 0, stoppedBy: null, failures: [], fetches: [] });

/** One batch's replies as the job's counters; a quota stop counts every entry left in the file as not imported. */
function tally(batch: ImportEntry[], reply: ImportEntriesReply, start: number, nextSeq: number, totalEntries: number): ImportProgress {
  const p = emptyProgress();
  for (let k = 0; k < batch.length; k++) {
    const r = reply.results[k];
    const entry = batch[k]!;
    if (!r) break;
    if (r.outcome === "quota") {
      p.stoppedBy = "quota_reached";
      p.notImported = totalEntries - (start + k);
      break;
    }
    p.processed++;
    if (r.outcome === "created") {
      p.created++;
      if (r.needsFetch) p.fetches.push({ itemId: r.id, host: hostOf(entry.url) });
    } else if (r.outcome === "present") p.present++;
    else {
      p.failures.push({ seq: nextSeq + p.failed, idx: start + k, url: entry.url, reason: r.reason });
      p.failed++;
    }
  }
  return p;
}

function hostOf(url: string): string {
  try {
    return new URL(url).hostname.toLowerCase();
  } catch {
    return "";
  }
}
