// Mail into items: one received message, parsed once, becomes an item of every inbox it was addressed to, through
// the same item writer as feeds. Dedupe by Message-ID per inbox (the entries table), a record of every message
// (GET /messages), and the confirmation a provider's setup mail carries (GET /confirmation).
import { escapeHtml, textAsHtml } from "@trove/feeds";
import { AppError } from "@trove/errors";
import type { Logger } from "@trove/log";
import { simpleParser, type AddressObject, type ParsedMail } from "mailparser";
import type { EntriesRepository } from "./entries.repository.ts";
import type { ItemWriter } from "./item-writer.ts";
import { findConfirmation, viewOnlineLink, type FoundConfirmation } from "./mail-content.ts";
import type { MessagesRepository, MessageStatus } from "./messages.repository.ts";
import { addFailureText } from "./run-errors.ts";
import { tagsFor } from "./smart-tags.ts";
import type { SourceEventsRepository } from "./source-events.repository.ts";
import type { SourceRow, SourcesRepository } from "./sources.repository.ts";
import { withSummary } from "./summary.ts";

export interface MailIntakeDeps {
  sources: SourcesRepository;
  entries: EntriesRepository;
  messages: MessagesRepository;
  events: SourceEventsRepository;
  writer: ItemWriter;
  inboxDomain: string;
  log: Logger;
}

/** Whether an inbox takes mail at an address now: the listener's answer at RCPT. */
export type RecipientState = "ok" | "unknown" | "paused";

/** What the mail is once parsed: what every recipient inbox makes its item from. */
interface Letter {
  messageId: string | null;
  /** The dedupe key: the Message-ID, else a hash of the whole message. */
  key: string;
  from: string;
  author: string;
  subject: string;
  html: string;
  text: string;
  url: string | null;
  confirmation: FoundConfirmation | null;
}

const clip = (s: string, n: number) => (s.length > n ? s.slice(0, n) : s);

export class MailIntake {
  constructor(private readonly deps: MailIntakeDeps) {}

  async recipient(address: string): Promise<RecipientState> {
    const row = await this.deps.sources.inboxAt(address);
    return !row ? "unknown" : row.status === "paused" ? "paused" : "ok";
  }

  /**
   * Takes one received message for these recipients. Throws only when the message cannot be parsed at all
   * (the listener refuses it); anything that goes wrong for one inbox is recorded on that inbox's message.
   */
  async take(raw: Buffer, recipients: string[], envelopeFrom: string, now: number): Promise<void> {
    const letter = await this.parse(raw, envelopeFrom);
    for (const address of new Set(recipients.map((r) => r.toLowerCase()))) {
      const source = await this.deps.sources.inboxAt(address);
      // Paused or deleted between RCPT and the end of DATA: nothing is added.
      if (!source || source.status !== "syncing") continue;
      await this.deliver(source, letter, raw.length, now);
    }
  }

  private async parse(raw: Buffer, envelopeFrom: string): Promise<Letter> {
    // In-process, bounded: the listener hands over at most its size cap, and attachments are not kept (their
    // content is read by the parser and dropped with the message).
    const mail: ParsedMail = await simpleParser(raw, { skipImageLinks: true, skipTextLinks: true, skipTextToHtml: true });
    const from = firstAddress(mail.from) ?? envelopeFrom;
    const messageId = mail.messageId ? clip(mail.messageId.trim(), 1_000) : null;
    const html = typeof mail.html === "string" && mail.html.trim() !== "" ? mail.html : textAsHtml(mail.text ?? "");
    const archivedAt = mail.headers.get("archived-at");
    return {
      messageId,
      key: messageId ? `message-id:${messageId}` : `message-sha256:${sha256(raw)}`,
      from: clip(from, 320),
      author: clip(mail.from?.text ?? from, 400),
      subject: clip(mail.subject?.trim() || "(no subject)", 1_000),
      html,
      text: mail.text ?? "",
      url: viewOnlineLink(html, typeof archivedAt === "string" ? archivedAt : undefined),
      confirmation: findConfirmation(mail.subject ?? "", mail.text ?? "", html),
    };
  }

  private async deliver(source: SourceRow, letter: Letter, size: number, now: number): Promise<void> {
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
      const body = source.settings.autoSummarize ? withSummary(letter.html) : letter.html;
      const item = await this.deps.writer.add(caller, {
        url: letter.url ?? this.addressOf(source.id, letter.key),
        html: `<html><head><title>${escapeHtml(letter.subject)}</title></head><body>${body}</body></html>`,
        title: letter.subject,
        tags: tagsFor({ title: letter.subject, url: letter.url, author: letter.author, html: letter.html }, source.settings),
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

const sha256 = (data: string | Buffer) => new Bun.CryptoHasher("sha256").update(data).digest("hex");

function firstAddress(from: AddressObject | undefined): string | null {
  return from?.value.find((v) => v.address)?.address ?? null;
}
