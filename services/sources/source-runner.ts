// One run of one source whose poll job this replica holds, whatever its type: which feed it reads, what the run did,
// and how that is recorded (status fields, next poll with backoff, the run or error event, the next poll's job), in
// the unit of work that ends the job, so a replica that no longer holds the job records nothing.
import type { UnitOfWork } from "@trove/db";
import { LeaseLost, type JobContext, type QueueSet } from "@trove/jobs";
import type { Logger } from "@trove/log";
import { secondsSince, sourcePollDuration } from "@trove/metrics";
import type { FeedPoller, PollResult } from "./feed-poller.ts";
import { RunFailure } from "./feed-fetch.ts";
import { schedulePoll } from "./queue-names.ts";
import { RunsRepository, type RunOutcome } from "./runs.repository.ts";
import { SourceEventsRepository, type NewSourceEvent } from "./source-events.repository.ts";
import type { SourceRow } from "./sources.repository.ts";

/** Failures back off: the interval doubles per failure in a row, up to a day (or the interval, when longer). */
export const maxBackoffSec = 86_400;
/** An X source without a bridge is looked at again daily (no error events pile up): setting the variable later starts it. */
export const unconfiguredRecheckSec = 86_400;

export interface RunReport {
  status: "ok" | "failed";
  itemsAdded: number;
  entriesSeen: number;
  error?: string;
}

export interface FeedAddresses {
  youtubeFeedUrl: string;
  xRssUrlTemplate: string | undefined;
}

/** What a run holds of its poll job: the end that records it (refused once the job is no longer this replica's). */
export type HeldPoll = Pick<JobContext, "complete" | "signal">;

export const xUnconfigured =
  "X offers no anonymous feed: the operator must set TROVE_X_RSS_URL_TEMPLATE (an RSS bridge address with {username}); until then this source does nothing";

/** The lastError of a source whose poll could not be finished for reasons of ours (the job gave up, see poll-job.ts). */
export const runNotFinished = "the run could not be finished (an internal failure); the source is polled again later";

/** The feed a source reads, or null when it cannot run (X without a bridge). */
export function feedUrlOf(row: SourceRow, addr: FeedAddresses): string | null {
  switch (row.type) {
    case "rss":
      return typeof row.config.feedUrl === "string" ? row.config.feedUrl : row.target;
    case "youtube_channel": {
      const url = new URL(addr.youtubeFeedUrl);
      url.searchParams.set("channel_id", row.target);
      return url.href;
    }
    case "x_articles":
      return addr.xRssUrlTemplate ? addr.xRssUrlTemplate.replaceAll("{username}", encodeURIComponent(String(row.config.username ?? row.target))) : null;
    case "email_inbox":
      return null;
  }
}

export class SourceRunner {
  constructor(
    private readonly poller: FeedPoller,
    /** Where the next poll's job goes (the queues of this replica). */
    private readonly jobs: QueueSet,
    private readonly addr: FeedAddresses,
    /** This replica's name, recorded in each run's event (`detail.replica`). */
    private readonly replica: string,
    private readonly log: Logger,
  ) {}

  /**
   * Runs a source and records the outcome with the job's end; never throws for the source's own failures. Answers
   * the report and the source as recorded (undefined: deleted meanwhile). Throws LeaseLost when the job was no
   * longer this replica's (taken over, cancelled, given back at a stop): nothing of the run is recorded then.
   */
  async run(row: SourceRow, now: number, held: HeldPoll): Promise<{ report: RunReport; row: SourceRow | undefined }> {
    const started = performance.now();
    const result = await this.runOnce(row, now, held);
    // Counted once recorded: a run whose job was lost (LeaseLost) recorded nothing and is run again elsewhere.
    const outcome = result.report.status === "ok" ? "ok" : feedUrlOf(row, this.addr) === null ? "not_polled" : "failed";
    sourcePollDuration.observe({ type: row.type, outcome }, secondsSince(started));
    return result;
  }

  private async runOnce(row: SourceRow, now: number, held: HeldPoll): Promise<{ report: RunReport; row: SourceRow | undefined }> {
    const every = row.poll_every_min * 60;
    const feedUrl = feedUrlOf(row, this.addr);
    if (feedUrl === null) {
      const message = row.type === "x_articles" ? xUnconfigured : "this source takes mail; it is not polled";
      const kept = await this.record(held, row, { now, ok: false, lastError: message, consecutiveFailures: 0, nextPollAt: now + unconfiguredRecheckSec, itemsAdded: 0, cursors: row.cursors }, null);
      return { report: { status: "failed", itemsAdded: 0, entriesSeen: 0, error: message }, row: kept };
    }
    let result: PollResult;
    try {
      result = await this.poller.poll(row, feedUrl, now);
    } catch (err) {
      if (!(err instanceof RunFailure)) this.log.error({ err, sourceId: row.id }, "source run failed");
      else this.log.info({ sourceId: row.id, reason: err.message, detail: err.detail }, "source run failed");
      const message = err instanceof RunFailure ? err.message : "internal error while running the source";
      const kept = await this.fail(held, row, now, message, 0, row.cursors);
      return { report: { status: "failed", itemsAdded: 0, entriesSeen: 0, error: message }, row: kept };
    }
    const name = row.cursors.nameFromFeed === true && result.feedTitle ? result.feedTitle.slice(0, 200) : undefined;
    if (result.stoppedBy) {
      const kept = await this.fail(held, row, now, result.stoppedBy, result.itemsAdded, result.cursors, name, result.entriesSeen);
      return { report: { status: "failed", itemsAdded: result.itemsAdded, entriesSeen: result.entriesSeen, error: result.stoppedBy }, row: kept };
    }
    const detail = { entriesSeen: result.entriesSeen, replica: this.replica, ...(result.notModified ? { notModified: true } : {}), ...(result.skipped ? { skipped: result.skipped } : {}) };
    const kept = await this.record(
      held,
      row,
      { now, ok: true, lastError: null, consecutiveFailures: 0, nextPollAt: now + every, itemsAdded: result.itemsAdded, cursors: result.cursors, name },
      { type: "run", at: now, itemsAdded: result.itemsAdded, detail },
    );
    return { report: { status: "ok", itemsAdded: result.itemsAdded, entriesSeen: result.entriesSeen }, row: kept };
  }

  /**
   * Records, in the unit of work that fails a poll's job for good, that the run could not be finished: a failure
   * like any other (backoff, error event), and the next poll queued, so the source is never left without one.
   */
  async notFinished(uow: UnitOfWork, row: SourceRow, now: number): Promise<void> {
    const { outcome, event } = this.failure(row, now, runNotFinished, 0, row.cursors);
    await this.write(uow, row, outcome, event);
  }

  private fail(held: HeldPoll, row: SourceRow, now: number, message: string, itemsAdded: number, cursors: Record<string, unknown>, name?: string, entriesSeen = 0) {
    const { outcome, event } = this.failure(row, now, message, itemsAdded, cursors, name, entriesSeen);
    return this.record(held, row, outcome, event);
  }

  private failure(row: SourceRow, now: number, message: string, itemsAdded: number, cursors: Record<string, unknown>, name?: string, entriesSeen = 0) {
    const failures = row.consecutive_failures + 1;
    const every = row.poll_every_min * 60;
    const backoff = Math.min(every * 2 ** failures, Math.max(maxBackoffSec, every));
    const outcome: RunOutcome = { now, ok: false, lastError: message, consecutiveFailures: failures, nextPollAt: now + backoff, itemsAdded, cursors, name };
    const event: NewSourceEvent = { type: "error", at: now, itemsAdded, message, detail: { entriesSeen, consecutiveFailures: failures, replica: this.replica } };
    return { outcome, event };
  }

  /** Records the run as the job's end; throws LeaseLost when the job is no longer this replica's. */
  private async record(held: HeldPoll, row: SourceRow, o: RunOutcome, event: NewSourceEvent | null): Promise<SourceRow | undefined> {
    let kept: SourceRow | undefined;
    try {
      await held.complete(async (uow) => {
        kept = await this.write(uow, row, o, event);
      });
    } catch (err) {
      if (err instanceof LeaseLost || held.signal.aborted) {
        this.log.warn({ sourceId: row.id }, "source run finished without its poll job; nothing recorded");
        const reason: unknown = held.signal.reason;
        throw err instanceof LeaseLost ? err : reason instanceof LeaseLost ? reason : new LeaseLost();
      }
      throw err;
    }
    return kept;
  }

  /** The run's record, its event and the next poll, in one unit of work; nothing for a source deleted meanwhile. */
  private async write(uow: UnitOfWork, row: SourceRow, o: RunOutcome, event: NewSourceEvent | null): Promise<SourceRow | undefined> {
    const kept = await new RunsRepository(uow.db).finish(row.id, o);
    if (!kept) return undefined;
    if (event) await new SourceEventsRepository(uow.db).add(row.account_id, row.id, event);
    await schedulePoll(this.jobs, uow, kept);
    return kept;
  }
}
