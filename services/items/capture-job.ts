// The `capture` queue: a save whose capture did not end within the request's wait (with a wait of 0, every save
// that needs one) keeps that capture as a job in the items' queue, written in the save's own unit of work. A capture
// begun in the request is handed to the job (claimed by this process); a job given back by a stop, or left by a
// process that died, is captured again from the start by the next worker, under the same capture id (so a newer
// capture of the item still wins). The capture's own outcomes (content, an HTTP error, a page too complex, a late
// refusal) end the job; only faults of ours (the database, the worker pool, a stop) try again, and a capture that
// still cannot finish ends with an error on the item its owner reads.
import { nowSeconds, type UnitOfWork } from "@trove/db";
import { defineQueue, LeaseLost, type Claim, type Job, type JobContext, type QueueSet } from "@trove/jobs";
import type { Logger } from "@trove/log";
import { keptContent, type Capture, type ContentCapture } from "./capture.ts";
import { itemEvent, scopeOf } from "./events.ts";
import type { ItemEvents } from "./item-events.ts";
import { ItemsRepository } from "./items.repository.ts";
import type { MediaService } from "./media.service.ts";
import { removeItems } from "./removal.ts";
import type { UsageService } from "./usage.service.ts";

export interface CapturePayload {
  itemId: string;
  /** The normalised URL to fetch (unless `html` is given). */
  url: string;
  /** Taken when the save began: a retry keeps it, so a newer capture of the item (a browser save) still wins. */
  captureId: string;
  /** The page the browser sent (its request body's size bounds it); dropped with the payload once the job is done. */
  html?: string;
  /** The save added the item: a refusal found late takes the item back, its count with it. */
  inserted: boolean;
  /** When that save was counted toward the plan (seconds): what a withdrawal gives back. */
  countedAt: number;
}

export const captureQueueName = "capture";
/** Runs a capture may start: a fault of ours after the last, or a crash during it, ends it with an error. */
const captureAttempts = 3;
/** Captures one process runs from the queue at once (most of a capture is waiting on a page; the worker pool bounds extraction). */
const captureConcurrency = 16;

/** A capture's failure that is ours, not the page's: the job tries again, its reason fit to show the owner. */
class CaptureFault extends Error {}

export interface CaptureJobsDeps {
  jobs: QueueSet;
  captures: ContentCapture;
  media: MediaService;
  usage: UsageService;
  events: ItemEvents;
  log: Logger;
}

export class CaptureJobs {
  constructor(private readonly d: CaptureJobsDeps) {
    d.jobs.register(
      defineQueue<CapturePayload>({
        name: captureQueueName,
        maxAttempts: captureAttempts,
        backoff: { firstMs: 2_000, maxMs: 60_000 },
        concurrency: captureConcurrency,
        run: async (job, ctx) => this.finish(ctx, await d.captures.capture(job.payload.url, job.payload.html, ctx.signal)),
        failed: (uow, job, reason) => this.interrupted(uow, job, reason),
      }),
    );
  }

  /** In a save's unit of work: the item's capture, queued for a worker. */
  async enqueue(uow: UnitOfWork, accountId: string, payload: CapturePayload): Promise<void> {
    await this.d.jobs.enqueue(uow, captureQueueName, payload, { accountId });
  }

  /** In a save's unit of work: the capture the request has begun, as a job this process holds (hand it to `finish`). */
  claim(uow: UnitOfWork, accountId: string, payload: CapturePayload): Promise<Claim<CapturePayload>> {
    return this.d.jobs.enqueueClaimed(uow, captureQueueName, payload, { accountId });
  }

  /**
   * Ends a capture's job with what the capture gave: its content or its error stored on the item (or the item
   * taken back, for a late refusal) in the unit of work that marks the job done. Throws to try again later.
   */
  async finish(ctx: JobContext<CapturePayload>, capture: Capture): Promise<void> {
    const { job } = ctx;
    const log = this.d.log.child({ itemId: job.payload.itemId });
    // Given back (a stop) or taken over: whoever holds the job now captures the page again.
    if (ctx.signal.aborted) throw new LeaseLost("the capture's job is no longer held here");
    if (!capture.ok && capture.ours) throw new CaptureFault(capture.error);
    try {
      let outcome: string;
      if (!capture.ok && capture.refused) outcome = await this.withdraw(ctx, capture.error);
      else {
        let stored = false;
        await ctx.complete(async (uow) => {
          stored = await this.d.captures.storeIn(new ItemsRepository(uow.db), uow, accountOf(job), job.payload.itemId, capture, job.payload.captureId, { announce: true });
        });
        outcome = !stored ? "superseded" : capture.ok ? "stored" : "failed";
      }
      log.info({ outcome }, "background capture finished");
    } catch (err) {
      if (err instanceof LeaseLost || ctx.signal.aborted) throw err;
      // The database, most likely: tried again; its detail is for the operator, not for the item's error.
      log.error({ err }, "a background capture could not be stored; it is tried again");
      throw new CaptureFault("internal error");
    }
  }

  /**
   * A refusal found only after the answer (a redirect to a blocked address): the save that added the item takes
   * it back, count included, unless content arrived meanwhile (a browser save); an older item records the error.
   */
  private async withdraw(ctx: JobContext<CapturePayload>, message: string): Promise<string> {
    const { job } = ctx;
    const { itemId, inserted, countedAt } = job.payload;
    const accountId = accountOf(job);
    let outcome = "refused";
    let blobKeys: string[] = [];
    // The function may run twice (a batch of job ends written again one by one): it starts over each time.
    await ctx.complete(async (uow) => {
      outcome = "refused";
      blobKeys = [];
      const tx = new ItemsRepository(uow.db);
      const row = await tx.getById(accountId, itemId, { content: true, lock: true });
      if (!row) return;
      if (inserted && row.content_capture_id === null) {
        blobKeys = (await removeItems(tx, uow, this.d.events, accountId, [row])).blobKeys;
        await this.d.usage.giveBack(tx, accountId, countedAt);
        outcome = "withdrawn";
        return;
      }
      await tx.setContent(accountId, row.id, { ...keptContent(row), contentExtractError: `url_not_allowed: ${message}`, now: nowSeconds() });
      const scope = scopeOf(row);
      await this.d.events.record(uow, accountId, [itemEvent("item.updated", row.id, scope, scope, { changedFields: ["contentExtractError"] })]);
    });
    await this.d.media.dropBlobs(blobKeys);
    return outcome;
  }

  /** The job failed for good (faults of ours at every try, or crashes): the item says so, as any capture's error. */
  private async interrupted(uow: UnitOfWork, job: Job<CapturePayload>, reason: string): Promise<void> {
    const { itemId, captureId } = job.payload;
    const error = `capture_interrupted: the page could not be captured after ${job.maxAttempts} tries (${reason})`;
    const stored = await this.d.captures.storeIn(new ItemsRepository(uow.db), uow, accountOf(job), itemId, { ok: false, error }, captureId, { announce: true });
    uow.afterCommit(() => this.d.log.warn({ itemId, outcome: stored ? "interrupted" : "superseded", reason }, "background capture finished"));
  }
}

function accountOf(job: Job<CapturePayload>): string {
  if (job.accountId === null) throw new Error(`capture job ${job.id} has no account`);
  return job.accountId;
}
