// Runs one import job: parses the uploaded file on the worker pool (with a deadline), then saves its entries
// through the items service a batch at a time, as the key that started the job (dedupe, quota and events apply as
// for any save). Each batch's outcome is recorded in one step with the job's progress, so a job taken up again
// after a restart goes on from the first entry not recorded. Entries saved without content are queued for the
// background fetcher.
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
import { importParseTaskName } from "@trove/portability";
import { TaskFailedError, WorkerTimeoutError, type WorkerPool } from "@trove/workers";
import type { ImportProgress, JobRow, JobsRepository } from "./jobs.repository.ts";
import type { Lease } from "./lease.ts";

/** Entries per request to the items service. */
const batchEntries = 100;
/** The deadline of parsing one file on a worker. */
const parseDeadlineMs = 120_000;

/** A job that cannot go on, with the reason its summary shows. */
export class ImportFailed extends Error {}

export class ImportRunner {
  constructor(
    private readonly jobs: JobsRepository,
    private readonly bus: Bus,
    private readonly blobs: BlobStore,
    private readonly workers: WorkerPool,
    private readonly opts: { requestTimeoutMs: number },
    /** Wakes the background fetcher once entries wait for their pages. */
    private readonly fetchesQueued: () => void,
  ) {}

  async run(job: JobRow, lease: Lease): Promise<void> {
    const bytes = job.blob ? await this.blobs.get(job.blob) : undefined;
    if (!bytes) throw new ImportFailed("the uploaded file is no longer stored");
    const parsed = await this.parse(bytes, job.format as ImportFormat);
    // Some reasons describe an entry that was still read, with a part missing (its highlights, its page): listed
    // with the failures for the user to see, not counted as entries lost.
    const partial = parsed.errors.filter((e) => e.partial);
    const lost = parsed.errors.filter((e) => !e.partial);
    const unreadable = lost.length;
    const total = parsed.entries.length + unreadable;
    if (Number(job.entries) !== total) await this.jobs.setEntries(job.id, lease.owner, total);
    // Entries the file could not give are the first failures (recorded once: a resumed job finds them there).
    let processed = Number(job.processed);
    if (processed === 0 && parsed.errors.length > 0) {
      const failures = [...lost, ...partial].map((e, seq) => ({ seq, idx: e.index, url: e.hint ?? null, reason: e.reason }));
      await this.record(job, lease, { ...emptyProgress(), processed: unreadable, failed: unreadable, failures });
      processed = unreadable;
    }
    // Failure rows are numbered in one sequence: the file's own first, then the entries the items service refused.
    let nextSeq = parsed.errors.length + Number(job.failed) - (Number(job.processed) === 0 ? 0 : unreadable);
    const caller = await this.currentCaller(job.caller);
    for (let i = processed - unreadable; i < parsed.entries.length; i += batchEntries) {
      await nextTurn();
      lease.check();
      const batch = parsed.entries.slice(i, i + batchEntries);
      const reply = (await this.bus.request(importEntriesSubject, { entries: batch }, { timeoutMs: this.opts.requestTimeoutMs * 2, headers: callerHeaders(caller) })) as ImportEntriesReply;
      const progress = tally(batch, reply, i, nextSeq, parsed.entries.length);
      nextSeq += progress.failed;
      await this.record(job, lease, progress);
      if (progress.fetches.length > 0) this.fetchesQueued();
      if (progress.stoppedBy) break;
    }
    await this.jobs.completeImport(job.id, lease.owner, nowSeconds(), parsed.truncated ? `the file ends early (${parsed.truncated}); what was readable was imported` : null);
    if (job.blob) await this.blobs.delete(job.blob).catch(() => {});
  }

  private async parse(bytes: Uint8Array, format: ImportFormat): Promise<ImportParseResult> {
    try {
      return (await this.workers.run(importParseTaskName, { bytes, format }, { deadlineMs: parseDeadlineMs })) as ImportParseResult;
    } catch (err) {
      // The parser's own refusals (a zip bomb, a file that is not this format) carry their reason.
      if (err instanceof TaskFailedError && err.errorName === "ImportFileError") throw new ImportFailed(err.message);
      if (err instanceof WorkerTimeoutError) throw new ImportFailed(`the file could not be read within ${parseDeadlineMs / 1000} s`);
      throw err;
    }
  }

  private async record(job: JobRow, lease: Lease, p: ImportProgress): Promise<void> {
    if (!(await this.jobs.recordImport(job.id, lease.owner, p))) lease.lost = true;
    lease.check();
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
