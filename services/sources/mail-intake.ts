// Mail into items, in two steps. `spool`: at the end of DATA, the raw message is kept with a job to read it, in one
// commit, before the listener answers 250, so a message answered 250 is never lost to a fault of ours. `process`:
// the job reads the message once (in the worker pool) and makes it an item of every inbox it was taken for, through
// the same item writer as feeds. Every step can run again (a retry after our fault, a job taken over after a
// crash): the entry claim names the message, the listing is written once per message and inbox, and the item
// writer's save is idempotent. Dedupe by Message-ID per inbox (the entries table), a record of every message
// (GET /messages), and the confirmation a provider's setup mail carries (GET /confirmation).
import type { Kysely } from "kysely";
import { inTransaction, newId, nowSeconds, type UnitOfWork } from "@trove/db";
import { AppError } from "@trove/errors";
import { escapeHtml } from "@trove/feeds";
import { sha256, withSummary, type Letter } from "@trove/intake";
import { failNow, type JobContext, type QueueSet } from "@trove/jobs";
import type { Logger } from "@trove/log";
import { EntriesRepository } from "./entries.repository.ts";
import type { ItemWriter } from "./item-writer.ts";
import { mailQueueName, type MailJob } from "./queue-names.ts";
import { MailSpoolRepository, type SpooledMail } from "./mail-spool.repository.ts";
import { MessagesRepository, type MessageStatus } from "./messages.repository.ts";
import { MailUnreadable, type PooledReading } from "./pooled-reading.ts";
import { addFailureText } from "./run-errors.ts";
import { SourceEventsRepository } from "./source-events.repository.ts";
import { SourcesRepository, type SourceRow } from "./sources.repository.ts";

export interface MailIntakeDeps {
  db: Kysely<any>;
  /** The sources service's work queues: the mail job is enqueued in the spool's commit. */
  jobs: Pick<QueueSet, "enqueue">;
  writer: ItemWriter;
  /** Parses and reads each message in a worker, with a deadline. */
  reading: PooledReading;
  inboxDomain: string;
  /** The most bytes of mail the spool holds at once (TROVE_MAIL_SPOOL_BYTES). */
  spoolBytes: number;
  log: Logger;
}

/** Whether an inbox takes mail at an address now: the listener's answer at RCPT. */
export type RecipientState = "ok" | "unknown" | "paused";

/** A message the listener does not take, with the SMTP reply the sender gets. */
export class MailRefused extends Error {
  override name = "MailRefused";
  constructor(
    readonly responseCode: number,
    message: string,
  ) {
    super(message);
  }
}

/** What the items service answers that concerns this message for this inbox (never worth a retry). */
const transientCodes = new Set(["service_unavailable", "timeout", "internal_error", "rate_limited"]);
const refusedForGood = (err: unknown): err is AppError => err instanceof AppError && !transientCodes.has(err.code);

/** What a failure listed for a message that was never read names as its subject. */
const unreadSubject = "(not read)";

export class MailIntake {
  private readonly sources: SourcesRepository;
  private readonly spool: MailSpoolRepository;
  private readonly entries: EntriesRepository;
  private readonly messages: MessagesRepository;

  constructor(private readonly deps: MailIntakeDeps) {
    this.sources = new SourcesRepository(deps.db);
    this.spool = new MailSpoolRepository(deps.db);
    this.entries = new EntriesRepository(deps.db);
    this.messages = new MessagesRepository(deps.db);
  }

  async recipient(address: string): Promise<RecipientState> {
    const row = await this.sources.inboxAt(address);
    return !row ? "unknown" : row.status === "paused" ? "paused" : "ok";
  }

  /**
   * Keeps one received message for the inboxes among its recipients that still take mail, with the job that makes
   * it their items, in one commit: once this resolves the message may be answered 250. MailRefused says what to
   * answer when it is not taken (no inbox takes it now, the spool is full); any other error is a fault of ours.
   */
  async take(raw: Buffer, recipients: string[], envelopeFrom: string): Promise<void> {
    const addresses: string[] = [];
    let paused = false;
    for (const address of new Set(recipients.map((r) => r.toLowerCase()))) {
      const source = await this.sources.inboxAt(address);
      // Paused or deleted between RCPT and the end of DATA: not taken for that inbox.
      if (source?.status === "syncing") addresses.push(address);
      else if (source) paused = true;
    }
    if (addresses.length === 0) {
      // As at RCPT: a paused inbox defers (the sender tries again), one that is gone does not exist.
      throw paused ? new MailRefused(450, "4.2.1 this inbox is paused; try again later") : new MailRefused(550, "5.1.1 no such inbox");
    }
    const id = newId();
    await inTransaction(
      this.deps.db,
      async (uow) => {
        const kept = await new MailSpoolRepository(uow.db).add({ id, raw, envelopeFrom, recipients: addresses, size: raw.length, receivedAt: nowSeconds() }, this.deps.spoolBytes);
        if (!kept) throw new MailRefused(452, "4.3.1 too much mail is waiting to be read; try again later");
        await this.deps.jobs.enqueue<MailJob>(uow, mailQueueName, { spoolId: id }, { id });
      },
      { log: this.deps.log },
    );
  }

  /**
   * The mail job: reads the spooled message and makes it an item of each inbox not yet done with it, then deletes
   * the raw message with the job's end. Throws to be tried again (the items service or the database failed us);
   * a message that cannot be read fails for good.
   */
  async process(ctx: JobContext<MailJob>): Promise<void> {
    const { spoolId } = ctx.job.payload;
    const spooled = await this.spool.get(spoolId);
    // Gone: an earlier run ended it (this run took the job over after that one's end was written).
    if (!spooled) return;
    const inboxes: SourceRow[] = [];
    for (const address of spooled.recipients) {
      const source = await this.sources.inboxAt(address);
      // A deleted inbox takes nothing; one paused since the message was taken still gets it (it was answered 250).
      if (source && !inboxes.some((s) => s.id === source.id)) inboxes.push(source);
    }
    const listed = await this.messages.listedIn(spoolId);
    const todo = inboxes.filter((s) => !listed.has(s.id));
    if (todo.length > 0) {
      let read;
      try {
        // Parsed once, in a worker, whatever the recipients: each inbox's tags and the summary come back with it.
        read = await this.deps.reading.mail(spooled.raw, spooled.envelopeFrom, todo.map(({ settings: s }) => ({ defaultTags: s.defaultTags, smartTagRules: s.smartTagRules, autoSummarize: s.autoSummarize })));
      } catch (err) {
        if (err instanceof MailUnreadable) {
          this.deps.log.info({ spoolId, detail: err.message }, "a message could not be read");
          throw failNow(err.message);
        }
        throw err;
      }
      const letter = read.letter;
      if (!spooled.read) await this.spool.noteRead(spoolId, { sender: letter.from, subject: letter.subject, messageId: letter.messageId });
      for (const [i, source] of todo.entries()) {
        ctx.signal.throwIfAborted();
        const body = source.settings.autoSummarize ? withSummary(letter.html, read.summary) : letter.html;
        await this.deliver(spooled, source, letter, body, read.tags[i]!);
      }
    }
    await ctx.complete((uow) => new MailSpoolRepository(uow.db).delete(spoolId));
  }

  /**
   * The mail job failed for good (unreadable, or our faults outlasted every try): each inbox not yet done with the
   * message lists it as failed with the reason and gives its entry claim back (a resend is tried again); the raw
   * message goes. Runs in the unit of work that marks the job failed.
   */
  async failed(uow: UnitOfWork, spoolId: string, reason: string): Promise<void> {
    const spool = new MailSpoolRepository(uow.db);
    const spooled = await spool.get(spoolId);
    if (!spooled) return;
    const sources = new SourcesRepository(uow.db);
    const listed = await new MessagesRepository(uow.db).listedIn(spoolId);
    const pending: SourceRow[] = [];
    for (const address of spooled.recipients) {
      const source = await sources.inboxAt(address);
      if (source && !listed.has(source.id) && !pending.some((s) => s.id === source.id)) pending.push(source);
    }
    await new EntriesRepository(uow.db).releaseMessage(spoolId, pending.map((s) => s.id));
    const letter = spooled.read ?? { sender: spooled.envelopeFrom, subject: unreadSubject, messageId: null };
    for (const source of pending) {
      await this.listFailure(uow, spooled, source, { from: letter.sender, subject: letter.subject, messageId: letter.messageId, confirmation: null }, reason);
    }
    await spool.delete(spoolId);
  }

  private async deliver(spooled: SpooledMail, source: SourceRow, letter: Letter, body: string, tags: string[]): Promise<void> {
    const now = nowSeconds();
    const claim = await this.entries.claimForMessage(source.id, letter.key, spooled.id, now);
    if (claim.kind === "seen") {
      await inTransaction(this.deps.db, (uow) => this.list(uow, spooled, source, letter, "duplicate", claim.itemId, null), { log: this.deps.log });
      return;
    }
    let itemId = claim.itemId;
    let added = false;
    try {
      const caller = await this.deps.writer.callerFor(source.account_id);
      if (itemId === null) {
        const saved = await this.deps.writer.save(caller, {
          url: letter.url ?? this.addressOf(source.id, letter.key),
          html: `<html><head><title>${escapeHtml(letter.subject)}</title></head><body>${body}</body></html>`,
          source: source.name,
        });
        itemId = saved.id;
        added = saved.added;
        await this.entries.setItem(source.id, letter.key, itemId);
      }
      // An earlier run of this message may have saved the item and stopped before its title and tags.
      if (!added && claim.kind === "mine") added = await this.deps.writer.madeSince(caller, itemId, spooled.receivedAt);
      if (added) await this.deps.writer.describe(caller, itemId, { title: letter.subject, tags });
    } catch (err) {
      if (!refusedForGood(err)) {
        this.deps.log.warn({ err, sourceId: source.id, spoolId: spooled.id }, "a message could not be added now; it is tried again");
        // The text every reading key may see is the failure's kind (it becomes the listing's error after the last try).
        throw new Error(addFailureText(err));
      }
      this.deps.log.info({ sourceId: source.id, code: err.code, detail: err.message }, "mail not added");
      const reason = addFailureText(err);
      await inTransaction(
        this.deps.db,
        async (uow) => {
          // Not seen: the same message sent again is tried again.
          await new EntriesRepository(uow.db).releaseMessage(spooled.id, [source.id]);
          await this.listFailure(uow, spooled, source, { from: letter.from, subject: letter.subject, messageId: letter.messageId, confirmation: letter.confirmation }, reason);
        },
        { log: this.deps.log },
      );
      return;
    }
    const id = itemId;
    await inTransaction(
      this.deps.db,
      async (uow) => {
        // Listed already (a run before this one got that far): counted already too.
        if (!(await this.list(uow, spooled, source, letter, "added", id, null))) return;
        await new SourcesRepository(uow.db).recordMail(source.account_id, source.id, { now, itemsAdded: added ? 1 : 0, error: null });
        await new SourceEventsRepository(uow.db).add(source.account_id, source.id, { type: "message", at: now, itemsAdded: added ? 1 : 0, detail: { from: letter.from, subject: letter.subject } });
      },
      { log: this.deps.log },
    );
  }

  /** Lists the message in an inbox (once per message and inbox); false when it was listed already. */
  private list(
    uow: UnitOfWork,
    spooled: SpooledMail,
    source: SourceRow,
    letter: Pick<Letter, "from" | "subject" | "messageId" | "confirmation">,
    status: MessageStatus,
    itemId: string | null,
    error: string | null,
  ): Promise<boolean> {
    return new MessagesRepository(uow.db).add({
      spool_id: spooled.id,
      source_id: source.id,
      account_id: source.account_id,
      message_id: letter.messageId,
      sender: letter.from,
      subject: letter.subject,
      received_at: spooled.receivedAt,
      size: spooled.size,
      item_id: itemId,
      status,
      error,
      confirmation: letter.confirmation,
    });
  }

  private async listFailure(uow: UnitOfWork, spooled: SpooledMail, source: SourceRow, letter: Pick<Letter, "from" | "subject" | "messageId" | "confirmation">, reason: string): Promise<void> {
    if (!(await this.list(uow, spooled, source, letter, "failed", null, reason))) return;
    const now = nowSeconds();
    // The sender is in the message list; lastError names no address.
    await new SourcesRepository(uow.db).recordMail(source.account_id, source.id, { now, itemsAdded: 0, error: `a message was not added: ${reason}` });
    await new SourceEventsRepository(uow.db).add(source.account_id, source.id, { type: "error", at: now, message: reason, detail: { from: letter.from, subject: letter.subject } });
  }

  /** A message without a web version gets a stable address of Trove's own (never fetched: its content is sent). */
  private addressOf(sourceId: string, key: string): string {
    return `https://${this.deps.inboxDomain}/sources/${sourceId}/messages/${sha256(key).slice(0, 32)}`;
  }
}
