// One run of one leased source, whatever its type: which feed it reads, what the run did, and how that is
// recorded (status fields, next poll with backoff, the run or error event), releasing the lease.
import type { Logger } from "@trove/log";
import type { FeedPoller, PollResult } from "./feed-poller.ts";
import { RunFailure } from "./feed-fetch.ts";
import type { LeasesRepository, RunOutcome } from "./leases.repository.ts";
import type { SourceEventsRepository } from "./source-events.repository.ts";
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

export const xUnconfigured =
  "X offers no anonymous feed: the operator must set TROVE_X_RSS_URL_TEMPLATE (an RSS bridge address with {username}); until then this source does nothing";

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
    private readonly leases: LeasesRepository,
    private readonly events: SourceEventsRepository,
    private readonly poller: FeedPoller,
    private readonly addr: FeedAddresses,
    /** This replica's lease owner name, also recorded in each run's event (`detail.replica`). */
    private readonly owner: string,
    private readonly log: Logger,
  ) {}

  /** Runs a source this replica leased and records the outcome; never throws for the source's own failures. */
  async run(row: SourceRow, now: number): Promise<RunReport> {
    const every = row.poll_every_min * 60;
    const feedUrl = feedUrlOf(row, this.addr);
    if (feedUrl === null) {
      const message = row.type === "x_articles" ? xUnconfigured : "this source takes mail; it is not polled";
      await this.finish(row, { now, ok: false, lastError: message, consecutiveFailures: 0, nextPollAt: now + unconfiguredRecheckSec, itemsAdded: 0, cursors: row.cursors });
      return { status: "failed", itemsAdded: 0, entriesSeen: 0, error: message };
    }
    let result: PollResult;
    try {
      result = await this.poller.poll(row, feedUrl, now);
    } catch (err) {
      if (!(err instanceof RunFailure)) this.log.error({ err, sourceId: row.id }, "source run failed");
      else this.log.info({ sourceId: row.id, reason: err.message, detail: err.detail }, "source run failed");
      const message = err instanceof RunFailure ? err.message : "internal error while running the source";
      await this.fail(row, now, message, 0, row.cursors);
      return { status: "failed", itemsAdded: 0, entriesSeen: 0, error: message };
    }
    const name = row.cursors.nameFromFeed === true && result.feedTitle ? result.feedTitle.slice(0, 200) : undefined;
    if (result.stoppedBy) {
      await this.fail(row, now, result.stoppedBy, result.itemsAdded, result.cursors, name, result.entriesSeen);
      return { status: "failed", itemsAdded: result.itemsAdded, entriesSeen: result.entriesSeen, error: result.stoppedBy };
    }
    const kept = await this.finish(row, { now, ok: true, lastError: null, consecutiveFailures: 0, nextPollAt: now + every, itemsAdded: result.itemsAdded, cursors: result.cursors, name });
    const detail = { entriesSeen: result.entriesSeen, replica: this.owner, ...(result.notModified ? { notModified: true } : {}), ...(result.skipped ? { skipped: result.skipped } : {}) };
    if (kept) await this.events.add(row.account_id, row.id, { type: "run", at: now, itemsAdded: result.itemsAdded, detail });
    return { status: "ok", itemsAdded: result.itemsAdded, entriesSeen: result.entriesSeen };
  }

  private async fail(row: SourceRow, now: number, message: string, itemsAdded: number, cursors: Record<string, unknown>, name?: string, entriesSeen = 0) {
    const failures = row.consecutive_failures + 1;
    const every = row.poll_every_min * 60;
    const backoff = Math.min(every * 2 ** failures, Math.max(maxBackoffSec, every));
    const kept = await this.finish(row, { now, ok: false, lastError: message, consecutiveFailures: failures, nextPollAt: now + backoff, itemsAdded, cursors, name });
    if (kept) await this.events.add(row.account_id, row.id, { type: "error", at: now, itemsAdded, message, detail: { entriesSeen, consecutiveFailures: failures, replica: this.owner } });
  }

  /** Records the run; false when the lease was lost (expired and taken over, or the source deleted): no event then. */
  private async finish(row: SourceRow, o: RunOutcome): Promise<boolean> {
    const kept = (await this.leases.finish(row.id, this.owner, o)) !== undefined;
    if (!kept) this.log.warn({ sourceId: row.id }, "source run finished without its lease");
    return kept;
  }
}
