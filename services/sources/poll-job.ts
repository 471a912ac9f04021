// The `source-poll` queue: one open job per syncing source (its key is the source id), due at the source's next
// poll. A run records its outcome and queues the next poll in the unit of work that ends its job; the domain's
// backoff (source-runner.ts) sets when that is. The queue's own retries are for failures of ours only (the database,
// a crash mid-run); a job that gives up still leaves the source a next poll. A create runs its source's first poll
// itself, as a job claimed in the create's unit of work, so that a stop or a crash hands it to the next start.
import type { UnitOfWork } from "@trove/db";
import { defineQueue, type Claim, type QueueSet } from "@trove/jobs";
import type { Logger } from "@trove/log";
import { pollQueueName, schedulePoll, type PollPayload } from "./queue-names.ts";
import type { RunReport, SourceRunner } from "./source-runner.ts";
import { SourcesRepository, type SourceRow } from "./sources.repository.ts";

/** Runs a poll may start before it gives up (crashes, database failures); the migration that made the first jobs says 5 too. */
export const pollMaxAttempts = 5;
/** Sources one replica polls at once. */
export const pollConcurrency = 4;

export interface SourcePollsDeps {
  /** The queues this replica enqueues to and works on (the host's, or a test replica's own). */
  jobs: QueueSet;
  runner: SourceRunner;
  sources: SourcesRepository;
  /** How long the worker sleeps at most between looks for due polls (TROVE_SOURCES_TICK_MS). */
  tickMs: number;
  log: Logger;
}

export class SourcePolls {
  /** The time a test's runDue() was given, while it runs. */
  private fixedNow: number | undefined;

  constructor(private readonly deps: SourcePollsDeps) {
    deps.jobs.register(
      defineQueue<PollPayload>({
        name: pollQueueName,
        maxAttempts: pollMaxAttempts,
        backoff: { firstMs: 10_000, maxMs: 600_000 },
        concurrency: pollConcurrency,
        tickMs: deps.tickMs,
        run: async (job, ctx) => {
          const row = job.accountId === null ? undefined : await deps.sources.get(job.accountId, job.payload.sourceId);
          if (row && row.status === "syncing" && row.next_poll_at !== null) {
            await deps.runner.run(row, this.nowSeconds(), ctx);
            return;
          }
          // Deleted, paused or taking mail: nothing to poll, and no next poll. Unless it was resumed since it was read:
          // that resume found this job open and queued none of its own, so the source is looked at again as the job ends.
          await ctx.complete(async (uow) => {
            const current = job.accountId === null ? undefined : await new SourcesRepository(uow.db).get(job.accountId, job.payload.sourceId);
            if (current) await schedulePoll(deps.jobs, uow, current);
          });
        },
        failed: async (uow, job, reason) => {
          deps.log.error({ sourceId: job.payload.sourceId, reason }, "a source's poll could not be finished; it is polled again after its backoff");
          if (job.accountId === null) return;
          const row = await new SourcesRepository(uow.db).get(job.accountId, job.payload.sourceId);
          if (!row || row.status !== "syncing" || row.next_poll_at === null) return;
          await deps.runner.notFinished(uow, row, this.nowSeconds());
        },
      }),
    );
  }

  /** Milliseconds now; during a test's runDue(now), that time. */
  readonly now = (): number => this.fixedNow ?? Date.now();

  /** See schedulePoll. */
  schedule(uow: UnitOfWork, row: SourceRow): Promise<void> {
    return schedulePoll(this.deps.jobs, uow, row);
  }

  /** In the unit of work that deletes a source: its poll goes too (a run in progress records nothing). */
  async cancel(uow: UnitOfWork, sourceId: string): Promise<void> {
    await this.deps.jobs.cancel(uow, pollQueueName, sourceId);
  }

  /** In the unit of work that creates a source: its first poll, claimed by this replica (run it with runFirst). */
  claimFirst(uow: UnitOfWork, row: SourceRow): Promise<Claim<PollPayload>> {
    return this.deps.jobs.enqueueClaimed<PollPayload>(uow, pollQueueName, { sourceId: row.id }, { key: row.id, accountId: row.account_id });
  }

  /**
   * Runs the first poll claimed by claimFirst, once the create has committed; answers its report and the source as
   * recorded. Throws LeaseLost when the poll was given back (a stop) or taken over: it runs again there.
   */
  runFirst(claim: Claim<PollPayload>, row: SourceRow): Promise<{ report: RunReport; row: SourceRow | undefined }> {
    const work = this.deps.runner.run(row, this.nowSeconds(), claim);
    claim.adopt(work);
    return work;
  }

  /** Runs every poll due at `nowSec` (default now), and again until none is; answers how many ran. Tests move the clock with it. */
  async runDue(nowSec?: number): Promise<number> {
    if (nowSec === undefined) return this.deps.jobs.runDue();
    this.fixedNow = nowSec * 1000;
    try {
      return await this.deps.jobs.runDue({ now: this.fixedNow });
    } finally {
      this.fixedNow = undefined;
    }
  }

  private nowSeconds(): number {
    return Math.floor(this.now() / 1000);
  }
}
