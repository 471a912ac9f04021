// An email inbox's mail as the user sees it: recent messages, and the latest confirmation a provider sent. Other
// accounts' sources and sources of other types are not found (404): these routes exist only for inboxes.
import type { Caller } from "@trove/contracts";
import { AppError } from "@trove/errors";
import type { MessageRow, MessagesRepository } from "./messages.repository.ts";
import type { SourcesRepository } from "./sources.repository.ts";

export class MessagesService {
  constructor(
    private readonly sources: SourcesRepository,
    private readonly messages: MessagesRepository,
  ) {}

  async list(caller: Caller, id: string, limit: number, offset: number) {
    await this.inbox(caller, id);
    const { rows, count } = await this.messages.list(caller.accountId, id, limit, offset);
    return { messages: rows.map(messageOf), limit, offset, count };
  }

  /** The latest confirmation: the personal credential's only, since following it acts for the owner. */
  async confirmation(caller: Caller, id: string) {
    if (caller.keyKind !== "personal") throw new AppError("forbidden", "an inbox's confirmation needs a personal key or a session: using it acts for the owner");
    await this.inbox(caller, id);
    const row = await this.messages.latestConfirmation(caller.accountId, id);
    if (!row?.confirmation) return { confirmation: null };
    return { confirmation: { ...row.confirmation, from: row.sender, subject: row.subject, receivedAt: row.received_at } };
  }

  private async inbox(caller: Caller, id: string) {
    const row = await this.sources.get(caller.accountId, id);
    if (!row) throw new AppError("not_found", "source not found");
    if (row.type !== "email_inbox") throw new AppError("not_found", "not an email_inbox source: it has no mail");
  }
}

const messageOf = (m: MessageRow) => ({
  id: m.id,
  from: m.sender,
  subject: m.subject,
  messageId: m.message_id,
  receivedAt: m.received_at,
  size: Number(m.size),
  itemId: m.item_id,
  status: m.status,
  error: m.error,
});
