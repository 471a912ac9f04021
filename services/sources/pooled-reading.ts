// Reading untrusted mail, feed entries and pages on the process's worker pool (the tasks of @trove/intake), each
// with a deadline: a hostile message or page costs a worker thread until its deadline, never this event loop.
import {
  entriesTaskName,
  feedLinkTaskName,
  mailTaskName,
  type EntriesTaskInput,
  type InboxRules,
  type MailTaskOutput,
  type PreparedEntry,
} from "@trove/intake";
import { PoolBusyError, PoolClosedError, WorkerTimeoutError, type WorkerPool } from "@trove/workers";
import { RunFailure } from "./feed-fetch.ts";

/** How long reading one message may take in its worker (a message is at most 10 MB). */
export const mailReadDeadlineMs = 30_000;
/** How long reading one run's new entries may take (a feed is at most 10 MB). */
export const entriesReadDeadlineMs = 10_000;
/** How long looking for a page's feed link may take (its first 1,000,000 characters are read). */
export const feedLinkDeadlineMs = 10_000;

/**
 * A received message that cannot be read, in time or at all: its job fails for good with this reason (the inboxes
 * list it as failed). Any other error of the reading (the pool busy or closed) is worth another try.
 */
export class MailUnreadable extends Error {
  override name = "MailUnreadable";
}

export class PooledReading {
  constructor(private readonly workers: Pick<WorkerPool, "run">) {}

  /** The message parsed and read for each inbox; MailUnreadable when it cannot be read in time or at all. */
  async mail(raw: Buffer, envelopeFrom: string, inboxes: InboxRules[]): Promise<MailTaskOutput> {
    try {
      return await this.workers.run<MailTaskOutput>(mailTaskName, { raw, envelopeFrom, inboxes }, { deadlineMs: mailReadDeadlineMs });
    } catch (err) {
      if (err instanceof PoolBusyError || err instanceof PoolClosedError) throw err;
      if (err instanceof WorkerTimeoutError) throw new MailUnreadable(`the message could not be read within ${mailReadDeadlineMs / 1000} s`);
      throw new MailUnreadable("the message could not be read");
    }
  }

  /** Each entry's tags, summary and excerpt; a RunFailure (the run's lastError) when they cannot be read in time. */
  async entries(input: EntriesTaskInput): Promise<PreparedEntry[]> {
    try {
      return await this.workers.run<PreparedEntry[]>(entriesTaskName, input, { deadlineMs: entriesReadDeadlineMs });
    } catch (err) {
      if (err instanceof WorkerTimeoutError) throw new RunFailure(`reading the feed's new entries took longer than ${entriesReadDeadlineMs / 1000} s`);
      if (err instanceof PoolBusyError) throw new RunFailure("too busy to read the feed's new entries; they are read at the next run");
      throw err;
    }
  }

  /** The page's RSS or Atom alternate link; null when it names none or cannot be read in time. */
  feedLink(html: string, base: string): Promise<string | null> {
    return this.workers.run<string | null>(feedLinkTaskName, { html, base }, { deadlineMs: feedLinkDeadlineMs }).catch(() => null);
  }
}
