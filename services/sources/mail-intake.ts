// Mail into items: one received message, parsed once, becomes an item of every inbox it was addressed to, through
// the same item writer as feeds. Dedupe by Message-ID per inbox (the entries table), a record of every message
// (GET /messages), and the confirmation a provider's setup mail carries (GET /confirmation).
import { escapeHtml } from "@trove/feeds";
import { AppError } from "@trove/errors";
import { sha256, withSummary, type Letter } from "@trove/intake";
import type { Logger } from "@trove/log";
import type { EntriesRepository } from "./entries.repository.ts";
import type { ItemWriter } from "./item-writer.ts";
import type { MessagesRepository, MessageStatus } from "./messages.repository.ts";
import type { PooledReading } from "./pooled-reading.ts";
import { addFailureText } from "./run-errors.ts";
import type { SourceEventsRepository } from "./source-events.repository.ts";
import type { SourceRow, SourcesRepository } from "./sources.repository.ts";

export interface MailIntakeDeps {
  sources: SourcesRepository;
  entries: EntriesRepository;
  messages: MessagesRepository;
  events: SourceEventsRepository;
  writer: ItemWriter;
  /** Parses and reads each message in a worker, with a deadline. */
  reading: PooledReading;
  inboxDomain: string;
  log: Logger;
}

/** Whether an inbox takes mail at an address now: the listener's answer at RCPT. */
export type RecipientState = "ok" | "unknown" | "paused";

export class MailIntake {
  constructor(private readonly deps: MailIntakeDeps) {}

  async recipient(address: string): Promise<RecipientState> {
    const row = await this.deps.sources.inboxAt(address);
    return !row ? "unknown" : row.status === "paused" ? "paused" : "ok";
  }

  /**
   * Takes one received message for these recipients. Throws only when the message cannot be read at all, or not
   * in time (MailRefused: the listener refuses it with its reply); anything that goes wrong for one inbox is
   * recorded on that inbox's message.
   */
  async take(raw: Buffer, recipients: string[], envelopeFrom: string, now: number): Promise<void> {
    const inboxes: SourceRow[] = [];
    for (const address of new Set(recipients.map((r) => r.toLowerCase()))) {
      const source = await this.deps.sources.inboxAt(address);
      // Paused or deleted between RCPT and the end of DATA: nothing is added.
      if (source && source.status === "syncing" && !inboxes.some((s) => s.id === source.id)) inboxes.push(source);
    }
    if (inboxes.length === 0) return;
    // Parsed once, in a worker, whatever the recipients: each inbox's tags and the summary come back with it.
    const read = await this.deps.reading.mail(raw, envelopeFrom, inboxes.map(({ settings: s }) => ({ defaultTags: s.defaultTags, smartTagRules: s.smartTagRules, autoSummarize: s.autoSummarize })));
    for (const [i, source] of inboxes.entries()) {
      const body = source.settings.autoSummarize ? withSummary(read.letter.html, read.summary) : read.letter.html;
      await this.deliver(source, read.letter, body, read.tags[i]!, raw.length, now);
    }
  }

  private async deliver(source: SourceRow, letter: Letter, body: string, tags: string[], size: number, now: number): Promise<void> {
    const record = (status: MessageStatus, itemId: string | null, error: string | null) =>
      this.deps.messages.add({
        source_id: source.id,
        account_id: source.account_id,
        message_id: letter.messageId,
        sender: letter.from,
        subject: letter.subject,
        received_at: now,
        size,
        item_id: itemId,
        status,
        error,
        confirmation: letter.confirmation,
      });
    if (!(await this.deps.entries.claim(source.id, letter.key, now))) {
      await record("duplicate", await this.deps.entries.itemOf(source.id, letter.key), null);
      return;
    }
    try {
      const caller = await this.deps.writer.callerFor(source.account_id);
      const item = await this.deps.writer.add(caller, {
        url: letter.url ?? this.addressOf(source.id, letter.key),
        html: `<html><head><title>${escapeHtml(letter.subject)}</title></head><body>${body}</body></html>`,
        title: letter.subject,
        tags,
        source: source.name,
      });
      await this.deps.entries.setItem(source.id, letter.key, item.id);
      await record("added", item.id, null);
      await this.deps.sources.recordMail(source.account_id, source.id, { now, itemsAdded: item.added ? 1 : 0, error: null });
      await this.deps.events.add(source.account_id, source.id, { type: "message", at: now, itemsAdded: item.added ? 1 : 0, detail: { from: letter.from, subject: letter.subject } });
    } catch (err) {
      // Not seen: the same message sent again (or retried by the sender) is tried again.
      await this.deps.entries.release(source.id, letter.key);
      const message = addFailureText(err);
      if (!(err instanceof AppError)) this.deps.log.error({ err, sourceId: source.id }, "mail intake failed");
      else this.deps.log.info({ sourceId: source.id, code: err.code, detail: err.message }, "mail not added");
      await record("failed", null, message);
      // The sender is in the message list; lastError names no address.
      await this.deps.sources.recordMail(source.account_id, source.id, { now, itemsAdded: 0, error: `a message was not added: ${message}` });
      await this.deps.events.add(source.account_id, source.id, { type: "error", at: now, message, detail: { from: letter.from, subject: letter.subject } });
    }
  }

  /** A message without a web version gets a stable address of Trove's own (never fetched: its content is sent). */
  private addressOf(sourceId: string, key: string): string {
    return `https://${this.deps.inboxDomain}/sources/${sourceId}/messages/${sha256(key).slice(0, 32)}`;
  }
}
